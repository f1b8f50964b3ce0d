"""Shipping decision records to a real HTTP collector on 127.0.0.1 in OPA's decision-log format: the collector
is down at first and comes up later, goes down again and the buffer overflows; decisions come from the shim."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from support import RunningDaemon, free_port, gemini_payload, run_shim, scrape, start_daemon

TIMEOUT = 30
TOKEN = "collector-token-1"
BUFFER = 8


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    events: list[dict[str, Any]]


@dataclass
class Collector:
    """A decision-log collector: accepts gzip'd JSON arrays on POST, keeps every upload."""

    port: int
    posts: list[Post] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        posts = self.posts

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                events = json.loads(gzip.decompress(body))
                posts.append(Post(self.path, dict(self.headers.items()), events))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()

    @property
    def events(self) -> list[dict[str, Any]]:
        return [event for post in self.posts for event in post.events]


@pytest.fixture
def collector() -> Iterator[Collector]:
    running = Collector(free_port())  # not listening yet: the collector is down
    yield running
    if running.server is not None:
        running.server.server_close()


def status(daemon: RunningDaemon) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "hookd", "status", "--json", "--runtime-dir", str(daemon.runtime_dir)],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shipping: dict[str, Any] = json.loads(done.stdout)["decision_log"]["shipping"]
    return {key: int(value) if key in ("sent", "dropped", "buffered", "failures") else value
            for key, value in shipping.items()}  # fmt: skip


def wait_for(daemon: RunningDaemon, condition: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    end = time.monotonic() + TIMEOUT
    while True:
        current = status(daemon)
        if condition(current):
            return current
        if time.monotonic() > end:
            raise AssertionError(f"shipping status never got there: {current}")
        time.sleep(0.05)


def decide(daemon: RunningDaemon, count: int) -> None:
    names = ["secret.txt", "fine.txt", "shout.txt"]
    for i in range(count):
        payload = gemini_payload("BeforeTool", tool_name="write_file",
                                 tool_input={"file_path": names[i % 3], "content": f"n{i} ghp_{'a' * 36}"})  # fmt: skip
        assert run_shim(daemon.socket, "BeforeTool", payload).returncode == 0


def test_records_made_while_the_collector_is_down_arrive_once_in_order_and_overflow_is_counted(
    tmp_path: Path, collector: Collector
) -> None:
    metrics_port = free_port()
    config = (
        f'[log.ship]\nurl = "http://127.0.0.1:{collector.port}/v1/logs"\ntoken = "{TOKEN}"\nbatch_size = 3\n'
        f"max_buffer = {BUFFER}\nmin_delay_ms = 50\nmax_delay_ms = 200\ntimeout_ms = 2000\n"
        f'[metrics]\nlisten = "127.0.0.1:{metrics_port}"\n'
    )
    daemon = start_daemon(tmp_path, config=config)
    try:
        decide(daemon, BUFFER)  # exactly what the buffer holds, while nothing listens
        down = wait_for(daemon, lambda s: s["buffered"] == BUFFER and s["failures"] >= 2)
        assert (down["sent"], down["dropped"]) == (0, 0)
        assert "Connection refused" in down["last_error"]

        collector.start()
        up = wait_for(daemon, lambda s: s["sent"] == BUFFER)
        assert (up["buffered"], up["dropped"]) == (0, 0)
        text = subprocess.run(
            [sys.executable, "-m", "hookd", "status", "--runtime-dir", str(daemon.runtime_dir)],
            capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
        ).stdout  # fmt: skip
        assert (
            f"shipping:  http://127.0.0.1:{collector.port}/v1/logs: sent {BUFFER}, buffered 0, dropped 0, "
            f"failed uploads {up['failures']} (last error: URLError: <urlopen error [Errno 111] Connection refused>)"
        ) in text.splitlines()
        records = daemon.decisions(at_least=BUFFER)
        assert [e["decision_id"] for e in collector.events] == [r["id"] for r in records]  # once each, in order
        for post in collector.posts:
            assert post.path == "/v1/logs"
            assert (post.headers["Content-Encoding"], post.headers["Content-Type"]) == ("gzip", "application/json")
            assert post.headers["Authorization"] == f"Bearer {TOKEN}"
            assert 1 <= len(post.events) <= 3
        lines = [json.loads(line) for line in daemon.decision_log.read_text().splitlines()]
        first, line = collector.events[0], lines[0]
        assert first["labels"]["app"] == "hookd"
        assert first["path"] == "hookd/gemini/BeforeTool"
        assert first["bundles"] == {"default": {"revision": line["revisions"]["default"]}}
        assert first["input"] == line["input"]  # masked as in the local log: the token is redacted
        assert "ghp_" not in json.dumps(collector.events)
        assert first["result"]["decision"] == "deny"
        assert first["result"]["verdicts"][0]["rule"] == "no-secret"
        assert first["timestamp"] == line["time"]
        assert (first["hookd"]["seq"], first["hookd"]["hash"]) == (line["seq"], line["hash"])
        assert first["requested_by"] == f"uid:{os.getuid()} pid:{line['caller']['pid']}"

        collector.stop()  # down again, and more decisions than the buffer holds
        decide(daemon, BUFFER + 3)
        full = wait_for(daemon, lambda s: s["dropped"] == 3 and s["buffered"] == BUFFER)
        assert full["sent"] == BUFFER
        metrics = scrape(f"127.0.0.1:{metrics_port}")
        assert (metrics[("hookd_log_ship_dropped_total", ())], metrics[("hookd_log_ship_buffered", ())]) == (3, BUFFER)
        assert metrics[("hookd_log_ship_sent_total", ())] == BUFFER
        assert metrics[("hookd_log_ship_failures_total", ())] >= full["failures"]  # it keeps retrying
        collector.start()
        wait_for(daemon, lambda s: s["sent"] == 2 * BUFFER and s["buffered"] == 0)
        later = [r["id"] for r in daemon.decisions(at_least=2 * BUFFER + 3)[BUFFER:]]
        shipped = [e["decision_id"] for e in collector.events[BUFFER:]]
        assert len(shipped) == len(set(shipped)) == BUFFER
        assert shipped == [i for i in later if i in shipped]  # in order; the 3 dropped ones are the only gaps
    finally:
        assert daemon.stop() == 0
    assert '"log_ship_failed"' in daemon.log()


def test_the_last_records_are_shipped_at_shutdown(tmp_path: Path, collector: Collector) -> None:
    collector.start()
    config = f'[log.ship]\nurl = "http://127.0.0.1:{collector.port}/logs"\nbatch_size = 100\nmin_delay_ms = 60000\n'
    daemon = start_daemon(tmp_path, config=config)
    try:
        decide(daemon, 2)  # fewer than a batch, and the upload interval is a minute away
        daemon.decisions(at_least=2)
        assert collector.events == []
    finally:
        assert daemon.stop() == 0
    assert [e["decision_id"] for e in collector.events] == [r["id"] for r in daemon.decisions(at_least=2)]
    assert "Authorization" not in collector.posts[0].headers


def test_a_collector_that_stays_down_does_not_hold_up_shutdown(tmp_path: Path, collector: Collector) -> None:
    config = f'[log.ship]\nurl = "http://127.0.0.1:{collector.port}/logs"\nmin_delay_ms = 20\nmax_delay_ms = 50\n'
    daemon = start_daemon(tmp_path, config=config)
    try:
        decide(daemon, 3)
        wait_for(daemon, lambda s: s["failures"] >= 3 and s["buffered"] == 3)
    finally:
        assert daemon.stop(timeout=15) == 0
    assert '"records": 3, "url": "http://127.0.0.1:' in daemon.log()
    assert '"event": "log_ship_unsent"' in daemon.log()
