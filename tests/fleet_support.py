"""A status receiver for the fleet tests and bench/fleet.py: a real HTTP server on 127.0.0.1 that takes
status reports (OPA's status API: POST /status; or PUT of one object per daemon, as an object store) and
keeps every report in arrival order. It takes shipped decision logs too (`[log.ship]`: a gzip'd JSON array
per POST), kept under the path they were POSTed to."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
import time
from collections.abc import Callable
from typing import Any


class StatusReceiver:
    def __init__(self) -> None:
        self.reports: list[tuple[str, str, Any]] = []  # (method, path, report or shipped events)
        self._lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                receiver._take(self)

            def do_PUT(self) -> None:
                receiver._take(self)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str = "status") -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{path}"

    def _take(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length)
        if handler.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        try:
            report = json.loads(body)
        except ValueError:
            handler.send_response(400)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        with self._lock:
            self.reports.append((handler.command, handler.path, report))
        handler.send_response(200)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def snapshot(self) -> list[tuple[str, str, Any]]:
        with self._lock:
            return list(self.reports)

    def latest(self) -> dict[str, dict[str, Any]]:
        """The last report of every daemon, by its labels' host/user/id."""
        out: dict[str, dict[str, Any]] = {}
        for _, _, report in self.snapshot():
            if not isinstance(report, dict):
                continue
            labels = report.get("labels", {})
            out[f"{labels.get('host')}/{labels.get('user')}/{labels.get('id')}"] = report
        return out

    def at(self, path: str) -> list[Any]:
        """What was sent to one path (`url(path)`), in arrival order."""
        return [body for _, at, body in self.snapshot() if at == f"/{path}"]

    def wait(self, what: Callable[[list[Any]], Any], timeout: float = 60, path: str | None = None) -> Any:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = what(self.at(path) if path is not None else [r for _, _, r in self.snapshot()])
            if found:
                return found
            time.sleep(0.05)
        raise AssertionError(f"no such status report within {timeout}s; last: {self.snapshot()[-1:]}")

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
