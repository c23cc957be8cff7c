"""The installed officegym and browsergym-core live in one environment.

`make test` runs these in `.venv-integrations`, against the wheel installed there.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.officegym.integrations.conftest import REQUIRE_BROWSERGYM, browsergym_module

browsergym_module()

pytestmark = pytest.mark.browsergym


def test_pip_check_finds_no_broken_requirement():
    result = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_playwright_is_the_version_browsergym_pins():
    pins = [
        req
        for req in importlib.metadata.requires("browsergym-core") or []
        if req.replace(" ", "").startswith("playwright==")
    ]
    assert pins, "browsergym-core no longer pins playwright"
    pinned = pins[0].split("==", 1)[1].split(";")[0].strip()
    assert release(importlib.metadata.version("playwright")) == release(pinned)


def release(version: str) -> tuple[int, ...]:
    """`1.44.0` and `1.44` as the same release."""
    parts = [int(part) for part in version.split(".")]
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def test_importing_the_integration_registers_the_tasks():
    module = importlib.import_module("officegym.integrations.browsergym")
    import gymnasium

    assert "browsergym/officegym.chat.post_update" in gymnasium.registry
    assert module.register()


@pytest.mark.skipif(not REQUIRE_BROWSERGYM, reason="only the wheel in .venv-integrations")
def test_officegym_is_imported_from_the_installed_wheel_not_the_source_tree():
    import officegym
    import officegym.harness

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    for module in (officegym, officegym.harness):
        assert Path(module.__file__).resolve().is_relative_to(site), module.__file__
    assert os.getcwd() not in [str(Path(p).resolve()) for p in sys.path if p]
