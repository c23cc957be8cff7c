"""Placeholder until written."""

from .blueprint import bp  # noqa: F401
