"""Demo passwords: every employee signs in with DEMO_PASSWORD; hashes are deterministic.

The salt comes from the world seed and the employee id, so the same world always has the
same bytes. The iteration count is low on purpose: these are sandbox accounts, and a world
with thousands of employees must still generate in seconds.
"""

from __future__ import annotations

import hashlib
import hmac

DEMO_PASSWORD = "officegym"
_ALGORITHM = "pbkdf2_sha256"
_ITERATIONS = 1000


def hash_password(password: str, salt: str) -> str:
    """Return `pbkdf2_sha256$<iterations>$<salt>$<hex digest>`."""
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), _ITERATIONS)
    return f"{_ALGORITHM}${_ITERATIONS}${salt}${digest.hex()}"


def check_password(password: str, encoded: str) -> bool:
    """True if `password` matches a hash made by `hash_password`; False for any malformed hash.

    A password with a NUL is refused: HMAC pads its key with NULs, so "pw" and "pw\\0" would
    otherwise match the same hash.
    """
    if "\0" in password:
        return False
    try:
        algorithm, iterations, salt, expected = encoded.split("$", 3)
        rounds = int(iterations)
    except ValueError:
        return False
    if algorithm != _ALGORITHM or rounds <= 0:
        return False
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt.encode(), rounds)
    return hmac.compare_digest(digest.hex(), expected)
