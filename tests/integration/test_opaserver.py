"""hookd.opaserver against the real `opa`: a port taken by another process between the free-port probe and
OPA's bind is never mistaken for OPA (its health answer alone proves nothing), and a new port is picked."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from collections.abc import Iterator

import pytest
from opa_server import OpaServer


class _AnswersEverything(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"result": {"squatter": true}}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def squatter() -> Iterator[http.server.HTTPServer]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _AnswersEverything)
    server.timeout = 1
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_a_squatted_port_is_not_taken_for_opa(squatter: http.server.HTTPServer) -> None:
    squatted = int(squatter.server_address[1])
    server = OpaServer()
    server.port = squatted  # as if another process bound the free port first
    server.start(timeout=20)
    try:
        assert server.port != squatted
        with urllib.request.urlopen(f"{server.url}/v1/config", timeout=5) as response:
            labels = json.load(response)["result"]["labels"]
        assert "version" in labels  # the real OPA, not the squatter
    finally:
        server.close()
