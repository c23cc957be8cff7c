"""One bearer-token rule for the serving commands."""

from __future__ import annotations

import pytest

from officegym.bearer import (
    PublicWithoutToken,
    authorized,
    is_loopback,
    require_token_off_loopback,
)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.3.2.1", "::1", "[::1]", "localhost"])
def test_loopback_hosts_are_loopback(host):
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.7", "example.com", ""])
def test_other_hosts_are_not_loopback(host):
    assert not is_loopback(host)


def test_a_public_host_needs_a_token_and_loopback_does_not():
    with pytest.raises(PublicWithoutToken, match="needs a token"):
        require_token_off_loopback("0.0.0.0", None)
    require_token_off_loopback("0.0.0.0", "s3cret")
    require_token_off_loopback("127.0.0.1", None)


@pytest.mark.parametrize(
    ("header", "admitted"),
    [
        ("Bearer s3cret", True),
        ("bearer s3cret", True),
        ("Bearer  s3cret ", True),
        ("Bearer s3cre", False),
        ("Bearer s3cret2", False),
        ("Basic s3cret", False),
        ("s3cret", False),
        ("", False),
        (None, False),
    ],
)
def test_only_the_servers_token_is_admitted(header, admitted):
    assert authorized(header, "s3cret") is admitted
    assert authorized(header, None)  # a server without a token admits every request
