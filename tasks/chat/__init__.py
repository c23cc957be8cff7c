"""Chat task templates (registered on import)."""

from . import post_update  # noqa: F401
