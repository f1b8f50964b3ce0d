"""A fake Anthropic Messages API on 127.0.0.1 for running the real Claude Code offline.

Stateless, one rule per request (after claude-code-offline.md §4): once the conversation holds a
`tool_result`, answer with text; otherwise, when the request offers the `Bash` tool, answer with one
`Bash` tool_use running `command`; otherwise answer with text. So a conversation has one tool call,
however many turns a hook adds (a blocked Stop makes Claude ask again: it gets text). Replies are
SSE with `event:` lines (without them the CLI falls back to non-streaming requests). Every request body is kept in
`requests`, so a test can read what the model was told.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "Done."


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


def _message(model: str, block: dict[str, Any], delta: dict[str, Any], stop_reason: str) -> bytes:
    start = {"type": "message_start", "message": {
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}  # fmt: skip
    return _sse([
        ("message_start", start),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ])  # fmt: skip


class FakeAnthropic:
    """Serves on 127.0.0.1 (an ephemeral port) until `close()`; the base URL is `url`."""

    def __init__(
        self, command: str, *, delegate: bool = False, before_tool_use: Callable[[], None] | None = None
    ) -> None:
        """`delegate`: the main conversation hands the command to a sub-agent (Claude's Task/Agent tool),
        whose own conversation (its prompt starts with SUBAGENT) then runs it with Bash. `before_tool_use`
        runs once, while the session waits for its first Bash tool_use (what happens meanwhile is outside
        any tool call)."""
        self.command = command
        self.delegate = delegate
        self._before_tool_use = before_tool_use
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the model was sent, in order."""
        with self._lock:
            requests = list(self.requests)
        out: list[dict[str, Any]] = []
        for body in requests:
            for message in body.get("messages", []):
                content = message.get("content")
                if message.get("role") == "user" and isinstance(content, list):
                    out.extend(b for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
        return out

    def reply_for(self, body: dict[str, Any]) -> bytes:
        model = str(body.get("model", "claude-fake"))
        messages = body.get("messages") or []
        answered = any(
            isinstance(m, dict) and isinstance(m.get("content"), list)
            and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"])
            for m in messages
        )  # fmt: skip
        tools = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        offers_bash = "Bash" in tools
        spawner = next((name for name in ("Agent", "Task") if name in tools), None)
        first = json.dumps(messages[0].get("content")) if messages and isinstance(messages[0], dict) else ""
        if self.delegate and not answered and spawner is not None and "SUBAGENT" not in first:
            block = {"type": "tool_use", "id": f"toolu_fake_{len(self.requests)}", "name": spawner, "input": {}}
            arguments = json.dumps({"description": "run the command", "subagent_type": "general-purpose",
                                    "prompt": "SUBAGENT: run the command with Bash"})  # fmt: skip
            return _message(model, block, {"type": "input_json_delta", "partial_json": arguments}, "tool_use")
        if not answered and offers_bash:
            if self._before_tool_use is not None:
                before, self._before_tool_use = self._before_tool_use, None
                before()
            block = {"type": "tool_use", "id": f"toolu_fake_{len(self.requests)}", "name": "Bash", "input": {}}
            arguments = json.dumps({"command": self.command, "description": "run the command"})
            return _message(model, block, {"type": "input_json_delta", "partial_json": arguments}, "tool_use")
        block = {"type": "text", "text": ""}
        return _message(model, block, {"type": "text_delta", "text": ANSWER}, "end_turn")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                with fake._lock:
                    fake.requests.append(body)
                data = fake.reply_for(body) if self.path.startswith("/v1/messages") else b"{}"
                self.send_response(200)
                kind = "text/event-stream" if self.path.startswith("/v1/messages") else "application/json"
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
