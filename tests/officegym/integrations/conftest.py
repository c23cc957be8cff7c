"""Tests of the framework integrations.

The BrowserGym ones need `browsergym-core`, which pins Playwright 1.44: `make test` runs them
(`-m browsergym`) in `.venv-integrations`, where the wheel is installed with the `browsergym`
extra, and sets `OFFICEGYM_REQUIRE_BROWSERGYM=1` there so a missing package fails instead of
skipping. In the main venv they are skipped.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRE_BROWSERGYM = os.environ.get("OFFICEGYM_REQUIRE_BROWSERGYM") == "1"


def browsergym_module(name: str = "browsergym.core") -> ModuleType:
    """Import a BrowserGym module, or skip the calling test module when it is not installed
    (an error instead under `OFFICEGYM_REQUIRE_BROWSERGYM=1`)."""
    if REQUIRE_BROWSERGYM:
        return importlib.import_module(name)
    return pytest.importorskip(name, reason="browsergym-core runs in .venv-integrations")
