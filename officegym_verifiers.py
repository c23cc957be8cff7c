"""The `officegym-verifiers` environment for the `verifiers` library (`vf-eval officegym-verifiers`).

verifiers finds an environment by module name (the id with dashes as underscores), so this
one top-level module re-exports `officegym.integrations.verifiers`; it needs the `verifiers`
extra (`pip install officegym[verifiers]`).
"""

from officegym.integrations.verifiers import *  # noqa: F403
from officegym.integrations.verifiers import __all__  # noqa: F401
