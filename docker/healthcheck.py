"""The image's HEALTHCHECK: healthy when the env server answers `GET /health` with 200 and JSON.

Standard library only, so it runs in the runtime image without its dependencies being
importable. It asks `http://127.0.0.1:$PORT/health` (PORT defaults to 8000, the port the
default command serves) directly, never through a proxy from the environment. Exit status 0
means healthy and 1 unhealthy, as Docker expects; the one line printed lands in
`docker inspect`'s health log.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import urllib.error
import urllib.request

DEFAULT_PORT = "8000"
# Below the HEALTHCHECK's --timeout, so a slow answer is reported rather than killed.
TIMEOUT_SECONDS = 4.0
MAX_BODY_BYTES = 64 * 1024


def health_url() -> str:
    """Where the env server in this container answers health checks."""
    port = os.environ.get("PORT") or DEFAULT_PORT
    return f"http://127.0.0.1:{port}/health"


def check(url: str) -> tuple[bool, str]:
    """Whether `url` answered 200 with a JSON body, and one line saying what it answered."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=TIMEOUT_SECONDS) as response:
            code, body = response.status, response.read(MAX_BODY_BYTES)
    except urllib.error.HTTPError as error:
        return False, f"unhealthy: {url} answered HTTP {error.code}"
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        reason = getattr(error, "reason", error)
        return False, f"unhealthy: {url} did not answer ({reason})"
    if code != 200:
        return False, f"unhealthy: {url} answered HTTP {code}"
    try:
        status = json.loads(body)
    except ValueError:
        return False, f"unhealthy: {url} answered 200 without a JSON body"
    return True, f"healthy: {json.dumps(status, sort_keys=True)[:200]}"


def main() -> int:
    healthy, line = check(health_url())
    print(line)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
