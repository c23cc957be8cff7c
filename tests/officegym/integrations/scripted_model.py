"""A scripted model behind a real OpenAI-compatible endpoint, for driving rollouts in tests.

`ScriptedModel(policy)` serves `POST /v1/chat/completions` on 127.0.0.1 with a stdlib
`ThreadingHTTPServer`: each request's messages go to `policy(messages) -> reply text`, and the
reply comes back as a chat completion. Every request is kept in `requests`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Policy = Callable[[list[dict[str, Any]]], str]


class ScriptedModel:
    """A local chat-completions server whose replies come from `policy`."""

    def __init__(self, policy: Policy, model: str = "scripted") -> None:
        self.policy = policy
        self.model = model
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                text = owner.policy(body["messages"])
                self._json(
                    {
                        "id": f"chatcmpl-{len(owner.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": owner.model,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                )

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": owner.model, "object": "model"}]})

            def _json(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedModel:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def user_turns(messages: list[dict[str, Any]]) -> list[str]:
    """The text of every user message, in order."""
    return [m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)]


def bid(page: str, role: str, name: str) -> str:
    """The bid of the first `role` element whose accessible name starts with `name`."""
    found = re.search(rf"\[(\d+)\] {re.escape(role)} '{re.escape(name)}", page)
    if found is None:
        raise LookupError(f"no {role} named {name!r} on the page")
    return found.group(1)


def post_update_policy(messages: list[dict[str, Any]]) -> str:
    """Solve `chat.post_update` from what the pages show: open the channel from the sidebar,
    type the quoted update in its composer, send it, then say it is done."""
    turns = user_turns(messages)
    goal = turns[0]
    channel = re.search(r"#([\w-]+)", goal).group(1)
    text = re.search(r'"([^"]+)"', goal).group(1)
    page = turns[-1]
    if len(turns) == 1:
        return f'click("{bid(page, "link", channel)}")'
    if len(turns) == 2:
        box = bid(page, "textbox", f"Message #{channel}")
        send = bid(page, "button", "Send")
        return f'```python\nfill("{box}", {json.dumps(text)})\nclick("{send}")\n```'
    return 'send_msg_to_user("Posted the update.")'


def done_at_once_policy(messages: list[dict[str, Any]]) -> str:
    """Claim the task is done without doing anything."""
    return 'send_msg_to_user("Done.")'
