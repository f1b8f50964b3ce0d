"""Discovery reconfigures a running daemon, as OPA's discovery reconfigures its plugins: one real daemon
whose local configuration names only a key, the discovery bundle and some local settings; real nginx
(Debian's nginx-light, as bench/fleet.py runs it) serves the signed discovery and policy bundles; two real
OpenTelemetry Collectors (tests/otelcol) and a real HTTP receiver on 127.0.0.1 take the status reports and
the shipped decision logs. A second discovery bundle moves the status target, the log shipping target, the
OTLP endpoint and the local layer's mode, and each applies without a restart; local settings that would
loosen the organisation's stay refused; a wrongly signed and an unsigned discovery bundle change nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_support import KeyPair, make_key, named, policy_dir, start, wait_for
from fleet_support import StatusReceiver

from hookd import wire
from hookd.bundle.build import build
from hookd.bundle.signing import Key
from support import ROOT, VENV_PYTHON, RunningDaemon, free_port

sys.path.insert(0, str(ROOT / "bench"))
import fleet  # bench/fleet.py: its Nginx and Collector

pytestmark = pytest.mark.timeout(400)
RULE = (
    'deny contains {{"id": "rev", "reason": "acme revision {rev}"}} '
    'if endswith(input.tool.input.file_path, "acme.txt")\n'
)
USER = 'deny contains {"id": "probe", "reason": "user probe"} if endswith(input.tool.input.file_path, "user.txt")\n'
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}


def needs(binary: str | None, what: str) -> str:
    if binary and os.access(binary, os.X_OK):
        return binary
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing in CI")
    pytest.skip(f"{what} is missing")


def signed(directory: Path, rev: str, root: str, key: KeyPair | None) -> bytes:
    return build(directory, revision=rev, roots=[root], key=Key(key.algorithm, key.private) if key else None)


def discovery(tmp_path: Path, rev: str, settings: dict[str, Any], key: KeyPair | None) -> bytes:
    directory = tmp_path / f"discovery-{rev}"
    (directory / "hookd" / "discovery").mkdir(parents=True)
    (directory / "hookd" / "discovery" / "data.json").write_text(json.dumps(settings))
    return signed(directory, rev, "hookd/discovery", key)


def decide(daemon: RunningDaemon, name: str) -> dict[str, Any]:
    """One BeforeTool decision over the hook socket: the reply the agent would read."""
    payload = {
        "session_id": "live", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00.000Z", "tool_name": "write_file",
        "tool_input": {"file_path": f"/tmp/{name}.txt", "content": "x"},
    }  # fmt: skip
    reply = wire.decode_reply(fleet.send_request(daemon.socket, HEADER, payload))
    assert reply.status is wire.Status.OK, reply
    return dict(json.loads(reply.stdout or b"{}"))


@pytest.fixture
def receiver() -> Iterator[StatusReceiver]:
    r = StatusReceiver()
    yield r
    r.close()


@pytest.fixture
def nginx() -> Iterator[fleet.Nginx]:
    binary = needs(fleet.nginx_binary(), "nginx (apt-get install nginx-light)")
    work = Path(tempfile.mkdtemp(prefix="hookd-live-"))  # nginx's workers (www-data) cannot enter pytest's tmp
    work.chmod(0o755)
    server = fleet.Nginx(binary, work / "nginx", free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture
def collectors(tmp_path: Path) -> Iterator[tuple[fleet.Collector, fleet.Collector]]:
    binary = needs(os.environ.get("HOOKD_OTELCOL_BIN"), "the test OpenTelemetry Collector ($HOOKD_OTELCOL_BIN)")
    started = []
    try:
        for n in (1, 2):
            (tmp_path / f"otel-{n}").mkdir()
            started.append(fleet.Collector(binary, tmp_path / f"otel-{n}"))
        yield started[0], started[1]
    finally:
        for collector in started:
            collector.stop()


def test_each_discovered_setting_applies_live_and_a_bad_discovery_bundle_changes_nothing(
    tmp_path: Path, nginx: fleet.Nginx, collectors: tuple[fleet.Collector, fleet.Collector], receiver: StatusReceiver
) -> None:
    key, wrong = make_key("RS256"), make_key("RS256")
    _, pub = key.write(tmp_path / "keys")
    first, second = collectors
    acme = {"url": nginx.url("acme.tar.gz"), "key": "org", "min_delay_seconds": 0.2, "max_delay_seconds": 0.4}
    org = policy_dir(tmp_path / "acme", "org", RULE.format(rev="r1"))
    nginx.publish("acme.tar.gz", signed(org, "r1", "hookd/org", key))

    def settings(n: int, collector: fleet.Collector, mode: str) -> dict[str, Any]:
        return {
            "bundles": {"acme": acme},
            "status": {"url": receiver.url(f"status-{n}"), "interval_seconds": 1},
            "log": {"ship": {"url": receiver.url(f"logs-{n}"), "min_delay_ms": 100}},
            "otel": {"endpoint": f"http://127.0.0.1:{collector.port}", "metrics_interval_ms": 500},
            "layers": {"mode": mode},
        }

    nginx.publish("discovery.tar.gz", discovery(tmp_path, "d1", settings(1, first, "monitor"), key))
    local = (
        f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n'
        f'[discovery]\nurl = "{nginx.url("discovery.tar.gz")}"\nkey = "org"\n'
        "min_delay_seconds = 0.2\nmax_delay_seconds = 0.4\n\n"
        '[layers]\nmode = "monitor"\n\n'  # the organisation's "enforce" (d2) may not be loosened
        f'[log.ship]\nurl = "{receiver.url("mine")}"\nbatch_size = 1\n'  # the url is the organisation's
    )
    policies = policy_dir(tmp_path / "user", "user", USER)
    daemon = start(tmp_path, policies, config=local)
    try:
        wait_for(daemon, named("discovery_activated", revision="d1"))
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        assert decide(daemon, "acme")["reason"].startswith("acme revision r1 ")
        assert "user probe" not in json.dumps(decide(daemon, "user"))  # the user's layer is in monitor mode
        shipped_to(receiver, "logs-1", daemon.decisions(at_least=2))
        exported_to(first, daemon.decisions(at_least=2))
        receiver.wait(lambda rs: [r for r in rs if r["discovery"].get("active_revision") == "d1"], path="status-1")

        nginx.publish("discovery.tar.gz", discovery(tmp_path, "d2", settings(2, second, "enforce"), key))
        wait_for(daemon, named("discovery_activated", revision="d2"))
        denied = decide(daemon, "user")  # the layer's new mode, at once
        assert denied["decision"] == "deny" and "user probe" in denied["reason"], denied
        after = daemon.decisions(at_least=3)[2:]
        shipped_to(receiver, "logs-2", after)
        exported_to(second, after)
        assert not {r["id"] for r in after} & shipped_ids(receiver, "logs-1")
        report = receiver.wait(
            lambda reports: [r for r in reports if r["discovery"].get("active_revision") == "d2"], path="status-2"
        )[-1]
        assert {"layers.mode", "log.ship.url"} <= set(report["discovery"]["overrides_refused"])
        layers = report["hookd"]["policy_sets"]
        assert any(p["rank"] == "user" and p["mode"] == "enforce" for p in layers), layers
        assert not receiver.at("mine")  # a local target the organisation's replaced never received a record
        fleet_now = status_of(daemon, lambda f: f.get("last_report_ok") and "status-2" in f["status_url"])
        assert fleet_now["discovery"]["revision"] == "d2" and fleet_now["discovery"]["active_since"]
        assert not fleet_now["discovery"].get("last_error") and int(fleet_now["reports_sent"]) >= 2
        assert {"layers.mode", "log.ship.url"} <= set(fleet_now["overrides_refused"])
        text = hookd_status(daemon)
        assert f"status:    {receiver.url('status-2')}: last report (" in text and " accepted; " in text, text
        assert f"discovery: {nginx.url('discovery.tar.gz')}: revision d2, activated " in text, text

        bad = settings(3, first, "monitor")
        nginx.publish("discovery.tar.gz", discovery(tmp_path, "d3", bad, wrong))
        wait_for(daemon, named("discovery_refused"))
        nginx.publish("discovery.tar.gz", discovery(tmp_path, "d4", bad, None))
        wait_for(daemon, lambda events: len(named("discovery_refused")(events)) >= 2)
        still = decide(daemon, "user")
        assert still["decision"] == "deny" and "user probe" in still["reason"], still
        last = daemon.decisions(at_least=4)[3:]
        shipped_to(receiver, "logs-2", last)
        exported_to(second, last)
        assert not {str(r["hash"]) for r in last} & first.record_hashes()
        refused = receiver.wait(
            lambda reports: [r for r in reports if r["discovery"].get("code") == "bundle_error"], path="status-2"
        )[-1]
        assert refused["discovery"]["active_revision"] == "d2"
        assert not receiver.at("status-3") and not receiver.at("logs-3")
        fleet_now = status_of(daemon, lambda f: f["discovery"].get("refusals") == "2")
        assert fleet_now["discovery"]["revision"] == "d2" and fleet_now["discovery"]["last_error"]
        assert fleet_now["discovery"]["last_error_at"] and fleet_now["last_report_ok"]
        assert "refused; last error (" in hookd_status(daemon)

        receiver.close()  # the status service goes away: hookd status says the last report failed
        fleet_now = status_of(daemon, lambda f: not f.get("last_report_ok") and f.get("last_report_error"))
        assert int(fleet_now["report_failures"]) >= 1
        assert " failed: " in hookd_status(daemon)
        assert daemon.proc.poll() is None and len(named("serving")(_events(daemon))) == 1  # never restarted
    finally:
        daemon.stop(timeout=30)


def hookd_status(daemon: RunningDaemon, *extra: str) -> str:
    done = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "status", *extra, "--runtime-dir", str(daemon.runtime_dir)],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    return done.stdout


def status_of(daemon: RunningDaemon, check: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """`hookd status --json`'s fleet part, once `check` holds of it."""
    found: dict[str, Any] = {}

    def holds() -> bool:
        nonlocal found
        found = json.loads(hookd_status(daemon, "--json")).get("fleet", {})
        return bool(found and check(found))

    fleet.wait_until(holds, 30, "hookd status showing the fleet state")
    return found


def _events(daemon: RunningDaemon) -> list[dict[str, Any]]:
    from bundle_support import events

    return events(daemon)


def shipped_ids(receiver: StatusReceiver, path: str) -> set[str]:
    return {str(event["decision_id"]) for batch in receiver.at(path) for event in batch}


def shipped_to(receiver: StatusReceiver, path: str, records: list[dict[str, Any]]) -> None:
    want = {str(r["id"]) for r in records}
    receiver.wait(lambda _: want <= shipped_ids(receiver, path), path=path)


def exported_to(collector: fleet.Collector, records: list[dict[str, Any]]) -> None:
    want = {str(r["hash"]) for r in records}
    fleet.wait_until(lambda: want <= collector.record_hashes(), 60, f"{len(want)} records at the collector")
