"""`officegym serve-env`: the command refuses what it cannot serve safely."""

from __future__ import annotations

from click.testing import CliRunner

from officegym.cli import main


def test_serve_env_refuses_a_public_address_without_a_token():
    result = CliRunner(env={"OFFICEGYM_TOKEN": None}).invoke(
        main, ["serve-env", "--host", "0.0.0.0", "--port", "0"]
    )
    assert result.exit_code == 2
    assert "refusing to serve on 0.0.0.0 without a token" in result.output
    assert "--token" in result.output and "OFFICEGYM_TOKEN" in result.output


def test_serve_env_lists_its_options():
    result = CliRunner().invoke(main, ["serve-env", "--help"])
    assert result.exit_code == 0
    for option in ("--token", "--max-sessions", "--step-timeout", "--idle-timeout",
                   "--navigation-timeout", "--screenshots", "--world-home"):  # fmt: skip
        assert option in result.output
