"""Alternations in phrase templates: "[Heads up|FYI]: the VPN is down[| tonight]" is one of
four sentences, picked with the generator's random stream.

An alternation is a pair of square brackets holding options split by "|"; an empty option
makes the part optional. Alternations nest. Placeholders in braces are left for `render`.
Template text never holds a literal square bracket.
"""

from __future__ import annotations

import random
import re

_INNER = re.compile(r"\[([^\[\]]*)\]")


def vary(template: str, rng: random.Random) -> str:
    """`template` with every alternation replaced by one of its options (innermost first)."""
    while "[" in template:
        template = _INNER.sub(lambda m: rng.choice(m.group(1).split("|")), template)
    return re.sub(r"  +", " ", template).replace(" ,", ",").replace(" .", ".").strip()


__all__ = ["vary"]
