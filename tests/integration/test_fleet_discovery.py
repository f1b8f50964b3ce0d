"""Discovery end to end: a real daemon whose local configuration names only a key and a discovery bundle on
a real HTTP server (127.0.0.1); the signed discovery bundle configures the organisation's bundle and the
status target. A wrongly signed discovery bundle is refused and reported while the last good one stays in
force; a new one changes a bundle's mode; a restart with the server down starts from the kept one."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_support import BundleServer, KeyPair, make_key, named, policy_dir, start, wait_for
from fleet_support import StatusReceiver

from hookd.bundle.build import build
from hookd.bundle.signing import Key

pytestmark = pytest.mark.timeout(300)
RULE = 'deny contains {{"id": "rev", "reason": "revision {rev}"}} if input.tool.name == "never-{rev}"\n'


def policy_bundle(tmp_path: Path, rev: str, key: KeyPair) -> bytes:
    source = policy_dir(tmp_path / f"src-{rev}", "org", RULE.format(rev=rev))
    return build(source, revision=rev, roots=["hookd/org"], key=Key(key.algorithm, key.private))


def discovery_bundle(tmp_path: Path, rev: str, settings: dict[str, Any], key: KeyPair) -> bytes:
    directory = tmp_path / f"discovery-{rev}"
    (directory / "hookd" / "discovery").mkdir(parents=True)
    (directory / "hookd" / "discovery" / "data.json").write_text(json.dumps(settings))
    return build(directory, revision=rev, roots=["hookd/discovery"], key=Key(key.algorithm, key.private))


@pytest.fixture
def receiver() -> Iterator[StatusReceiver]:
    r = StatusReceiver()
    yield r
    r.close()


@pytest.fixture
def server() -> Iterator[BundleServer]:
    s = BundleServer()
    yield s
    s.close()


def latest(receiver: StatusReceiver, check: Any) -> Any:
    return receiver.wait(lambda reports: [r for r in reports if check(r)])[-1]


def test_discovery_configures_refuses_reconfigures_and_is_kept(
    tmp_path: Path, server: BundleServer, receiver: StatusReceiver
) -> None:
    key, wrong = make_key("RS256"), make_key("RS256")
    _, pub = key.write(tmp_path / "keys")
    acme = {"url": server.url("acme.tar.gz"), "key": "org", "min_delay_seconds": 0.2, "max_delay_seconds": 0.4}
    settings = {"bundles": {"acme": acme}, "status": {"url": receiver.url(), "interval_seconds": 2}}
    server.publish("acme.tar.gz", policy_bundle(tmp_path, "r1", key))
    server.publish("discovery.tar.gz", discovery_bundle(tmp_path, "d1", settings, key))
    local = (
        f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n'
        f'[discovery]\nurl = "{server.url("discovery.tar.gz")}"\nkey = "org"\n'
        "min_delay_seconds = 0.2\nmax_delay_seconds = 0.4\n"
        'modes = {other = "enforce"}\n'  # names no discovered bundle: reported as not applied
    )
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state)}
    daemon = start(tmp_path, config=local, env=env)
    try:
        wait_for(daemon, named("discovery_activated", revision="d1"))
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        first = latest(receiver, lambda r: r["bundles"].get("acme", {}).get("active_revision") == "r1")
        assert first["discovery"]["active_revision"] == "d1"
        assert first["plugins"]["discovery"] == {"state": "OK"}

        server.publish("discovery.tar.gz", discovery_bundle(tmp_path, "d-bad", {"bundles": {}}, wrong))
        wait_for(daemon, named("discovery_refused"))
        refused = latest(receiver, lambda r: r["discovery"].get("code") == "bundle_error")
        assert refused["discovery"]["active_revision"] == "d1"
        assert "acme" in refused["bundles"] and any(e.startswith("discovery:") for e in refused["hookd"]["errors"])

        monitor = {"bundles": {"acme": {**acme, "mode": "monitor"}}, "status": settings["status"]}
        server.publish("discovery.tar.gz", discovery_bundle(tmp_path, "d2", monitor, key))
        wait_for(daemon, named("discovery_activated", revision="d2"))
        moved = latest(
            receiver,
            lambda r: any(p["name"] == "acme" and p["mode"] == "monitor" for p in r["hookd"]["policy_sets"]),
        )
        assert moved["discovery"]["active_revision"] == "d2"
    finally:
        daemon.stop()

    server.fail = 503  # the organisation's server is down: the daemon starts from what it kept
    before = len(receiver.snapshot())
    again = start(tmp_path, config=local, env=env)
    try:
        wait_for(again, named("discovery_loaded_from_state", revision="d2"))
        wait_for(again, named("bundle_loaded_from_state", source="acme", revision="r1"))
        report = receiver.wait(lambda reports: reports[before:])[-1]
    finally:
        again.stop()
    assert report["discovery"]["active_revision"] == "d2"
    assert report["discovery"]["hookd"]["location"] == server.url("discovery.tar.gz")
    assert any(p["name"] == "acme" and p["mode"] == "monitor" for p in report["hookd"]["policy_sets"])
