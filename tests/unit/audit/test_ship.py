"""The shipper's buffer against a real TCP listener that accepts and never answers (an upload stays in flight),
and the OPA decision-log event built from a real record."""

from __future__ import annotations

import asyncio
import gzip
import http.server
import json
import socket
import threading

import pytest
import uvloop

from hookd.audit.record import Logged
from hookd.audit.ship import Shipper, opa_event
from hookd.config import ShipConfig


def logged(n: int) -> Logged:
    record = {
        "type": "decision", "id": f"{n:016x}", "time": "2026-12-02T10:11:12.000000Z", "client": "gemini",
        "event": "BeforeTool", "tool": "write_file", "decision": "deny", "reason": "no (decision x)",
        "verdicts": [{"kind": "deny", "policy": "hookd.demo", "rule": "no-secret", "message": "no"}],
        "notes": [], "revisions": {"default": "abc123"}, "latency_ms": 1.25,
        "caller": {"uid": 1000, "gid": 1000, "pid": 42, "ppid": 41}, "session": "s1", "via": "socket",
        "input": {"event": "BeforeTool"},
    }  # fmt: skip
    return Logged(record, n, "{}", f"hash{n}")


def test_opa_event_fields() -> None:
    event = opa_event(logged(7), {"app": "hookd", "id": "i", "version": "0.1.0"})
    assert event == {
        "labels": {"app": "hookd", "id": "i", "version": "0.1.0"},
        "decision_id": "0000000000000007",
        "bundles": {"default": {"revision": "abc123"}},
        "path": "hookd/gemini/BeforeTool",
        "input": {"event": "BeforeTool"},
        "result": {
            "decision": "deny",
            "reason": "no (decision x)",
            "tool": "write_file",
            "verdicts": [{"kind": "deny", "policy": "hookd.demo", "rule": "no-secret", "message": "no"}],
            "notes": [],
        },
        "requested_by": "uid:1000 pid:42",
        "timestamp": "2026-12-02T10:11:12.000000Z",
        "metrics": {"timer_hookd_decision_ns": 1_250_000},
        "hookd": {
            "seq": 7,
            "hash": "hash7",
            "session": "s1",
            "via": "socket",
            "caller": {"uid": 1000, "gid": 1000, "pid": 42, "ppid": 41},
        },
    }


def test_in_flight_records_count_against_the_bound_and_offer_never_waits() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()  # accepts (the kernel does), never answers: the upload stays in flight
        port = silent.getsockname()[1]
        config = ShipConfig(
            url=f"http://127.0.0.1:{port}/logs", batch_size=3, max_buffer=5, min_delay_ms=10, timeout_ms=1000
        )

        async def scenario() -> tuple[int, ...]:
            shipper = Shipper(config)
            shipper.start()
            for n in range(1, 4):
                shipper.offer(logged(n))
            for _ in range(200):
                await asyncio.sleep(0.01)
                if shipper._in_flight:
                    break
            in_flight = shipper._in_flight
            for n in range(4, 8):  # 2 fit beside the 3 in flight; then the oldest queued one goes each time
                shipper.offer(logged(n))
            queued = [item.seq for item in shipper._queue]
            await shipper.close(grace=0.2)
            return in_flight, shipper.buffered, shipper.dropped, shipper.sent, *queued

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            in_flight, buffered, dropped, sent, *queued = runner.run(scenario())
    assert (in_flight, dropped, sent) == (3, 2, 0)
    assert queued == [6, 7]
    assert buffered == 5  # still held when close gave up: the local log has them all


def test_a_batch_never_carries_nan_or_infinity() -> None:
    # A strict collector refuses a whole batch over one NaN, and the shipper would retry it for ever.
    record = logged(1)
    record.record["input"] = {"n": float("nan"), "big": float("inf")}
    bodies: list[bytes] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            bodies.append(gzip.decompress(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            port = server.server_address[1]
            Shipper(ShipConfig(url=f"http://127.0.0.1:{port}/logs", timeout_ms=5000))._post([record])
        finally:
            server.shutdown()
    (body,) = bodies
    (event,) = json.loads(body, parse_constant=lambda name: pytest.fail(f"{name} in the shipped batch"))
    assert event["input"] == {"n": None, "big": None}
