"""The serving commands (`serve-env`, `mcp`) load only when used and name their extra."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

import officegym
from officegym.cli import main


def test_help_lists_the_serving_commands_without_importing_their_dependencies():
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from officegym.cli import main\n"
        "out = CliRunner().invoke(main, ['--help'], terminal_width=200).output\n"
        "assert 'serve-env' in out and 'mcp ' in out, out\n"
        "heavy = [m for m in ('fastapi', 'uvicorn', 'mcp', 'officegym.envserver') "
        "if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("command", "dependency", "extra"),
    [("serve-env", "fastapi", "serve"), ("mcp", "mcp", "mcp")],
)
def test_a_serving_command_without_its_extra_names_the_extra_to_install(
    monkeypatch, command, dependency, extra
):
    for name in list(sys.modules):
        if name == dependency or name.startswith(
            (f"{dependency}.", "officegym.envserver", "officegym.mcp")
        ):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, dependency, None)  # import now fails as if missing
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 1
    assert f"pip install 'officegym[{extra}]'" in result.output
    assert dependency in result.output


def test_make_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="mode must be one of browser, mcp"):
        officegym.make("chat.post_update", mode="telepathy")
