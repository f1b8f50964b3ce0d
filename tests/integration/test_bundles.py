"""Signed policy bundles end to end: a real daemon polling a real HTTP server on 127.0.0.1.

Every org bundle here denies writing `probe.txt` with the reason "revision <R>", so each reply names
the revision that decided it, and the decision log record must name the same one.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from bundle_support import BundleServer, KeyPair, events, make_key, named, policy_dir, self_signed, start, wait_for

from hookd import wire
from hookd.bundle.archive import read_tarball, write_tarball
from hookd.bundle.build import build, with_signature
from hookd.bundle.signing import Key
from support import DEMO_POLICIES, VENV_PYTHON, RunningDaemon, eventually, gemini_payload, run_shim

pytestmark = pytest.mark.timeout(400)  # subprocesses and real servers: slow on a loaded box

ORG_RULES = """
deny contains {{"id": "rev", "reason": "revision {rev}"}} if endswith(input.tool.input.file_path, "probe.txt")
deny contains {{"id": "no-rm", "reason": "the organisation forbids rm"}} if {{
	some cmd in input.shell.commands
	cmd.name == "rm"
}}
rewrite contains {{"id": "curl", "tool_input": {{"command": "echo curl is rewritten by the organisation"}}}} if {{
	some cmd in input.shell.commands
	cmd.name == "curl"
}}
"""


def org_bundle(tmp_path: Path, rev: str, key: KeyPair | None, *, extra: str = "", roots: list[str] | None = None,
               package: str = "org") -> bytes:  # fmt: skip
    source = policy_dir(
        tmp_path / f"src-{package}-{rev}-{time.monotonic_ns()}", package, ORG_RULES.format(rev=rev) + extra
    )
    signing = Key(key.algorithm, key.private) if key else None
    return build(source, revision=rev, roots=roots or [f"hookd/{package}"], key=signing)


def config_for(server: BundleServer, pub: Path, *, sources: tuple[str, ...] = ("acme",), extra: str = "") -> str:
    text = f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n[layers]\nwatch = false\n'
    for name in sources:
        text += (
            f'\n[bundles.{name}]\nurl = "{server.url(name + ".tar.gz")}"\nkey = "org"\ntoken = "s3cret-{name}"\n'
            "min_delay_seconds = 0.2\nmax_delay_seconds = 0.4\n"
        )
    return text + extra


HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}


def probe(daemon: RunningDaemon, name: str = "probe.txt") -> str:
    """One BeforeTool decision over the hook socket; the reason the agent would see ("" for allow)."""
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": "x"})
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(str(daemon.socket))
        sock.sendall(wire.encode_request(HEADER, json.dumps(payload).encode()))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    reply = wire.decode_reply(b"".join(chunks))
    assert reply.status is wire.Status.OK, reply
    return str(json.loads(reply.stdout)["reason"]) if reply.stdout else ""


@pytest.fixture(scope="module")
def org_key(tmp_path_factory: pytest.TempPathFactory) -> tuple[KeyPair, Path]:
    key = make_key("RS256")
    return key, key.write(tmp_path_factory.mktemp("keys"))[1]


@pytest.fixture
def server() -> Iterator[BundleServer]:
    running = BundleServer()
    yield running
    running.close()


@pytest.fixture
def serving(tmp_path: Path, server: BundleServer, org_key: tuple[KeyPair, Path]) -> Iterator[RunningDaemon]:
    key, pub = org_key
    server.publish("acme.tar.gz", org_bundle(tmp_path, "r1", key))
    daemon = start(tmp_path, config=config_for(server, pub))
    try:
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        yield daemon
    finally:
        daemon.stop()


def answered_after_a_good_one(server: BundleServer, since: int) -> bool:
    """The bundle server answered a request after its first 200 since `since`."""
    statuses = [r.status for r in server.requests[since:]]
    return 200 in statuses and len(statuses) > statuses.index(200) + 1


class TestPolling:
    def test_publish_is_active_within_a_poll_and_a_304_costs_no_recompile(
        self, tmp_path: Path, server: BundleServer, serving: RunningDaemon, org_key: tuple[KeyPair, Path]
    ) -> None:
        assert probe(serving).startswith("revision r1 [hookd.org:rev]")
        before = len(server.requests)
        wait_for(serving, lambda _: server.count(304) >= 3)
        not_modified = [r for r in server.requests if r.status == 304]
        assert all(r.headers.get("if-none-match") for r in not_modified)
        assert all(r.headers["prefer"] == "modes=snapshot" for r in server.requests)
        assert all(r.headers["authorization"] == "Bearer s3cret-acme" for r in server.requests)
        assert len(named("bundle_activated")(events(serving))) == 1  # the 304s compiled nothing

        bundle = org_bundle(tmp_path, "r2", org_key[0])  # built and signed before the count: polls go on meanwhile
        published_at = len(server.requests)
        server.publish("acme.tar.gz", bundle)
        wait_for(serving, named("bundle_activated", source="acme", revision="r2"))
        assert probe(serving).startswith("revision r2 [hookd.org:rev]")
        first_200 = next(i for i, r in enumerate(server.requests) if i >= published_at and r.status == 200)
        assert first_200 - published_at <= 1  # the first poll after publishing fetched it
        assert before >= 1
        records = serving.decisions(at_least=2)
        assert [r["revisions"]["acme"] for r in records] == ["r1", "r2"]
        assert set(records[-1]["revisions"]) == {"acme", "default"}

    def test_server_down_keeps_serving_and_backs_off_visibly(
        self, server: BundleServer, serving: RunningDaemon
    ) -> None:
        server.fail = 503
        failures = wait_for(serving, lambda evs: (f := named("bundle_download_failed")(evs)) and len(f) >= 4 and f)
        assert [f["failures"] for f in failures[:4]] == [1, 2, 3, 4]
        delays = [f["retry_in_s"] for f in failures[:4]]
        assert delays == sorted(delays) and delays[0] < delays[2] and max(delays) <= 0.4
        assert "HTTP 503" in failures[0]["error"]
        assert probe(serving).startswith("revision r1")  # still serving the last good bundle
        before = len(server.requests)
        server.fail = 0
        # Polls go one at a time: once a request follows the good answer, its bundle has been offered.
        wait_for(serving, lambda _: answered_after_a_good_one(server, before))
        assert len(named("bundle_activated")(events(serving))) == 1  # the same bytes again: no recompile

    def test_long_polling_when_the_server_offers_it(
        self, tmp_path: Path, server: BundleServer, org_key: tuple[KeyPair, Path]
    ) -> None:
        key, pub = org_key
        server.publish("acme.tar.gz", org_bundle(tmp_path, "r1", key))
        config = config_for(server, pub).replace("max_delay_seconds = 0.4\n", "max_delay_seconds = 90\n")
        config = config.replace(
            "min_delay_seconds = 0.2\n", "min_delay_seconds = 60\nlong_polling_timeout_seconds = 2\n"
        )
        daemon = start(tmp_path, config=config)
        try:
            wait_for(daemon, named("bundle_activated", revision="r1"))
            server.publish("acme.tar.gz", org_bundle(tmp_path, "r2", key))
            wait_for(daemon, named("bundle_activated", revision="r2"), timeout=40)  # sooner than min_delay 60 s
            assert all(r.headers["prefer"] == "modes=snapshot;wait=2" for r in server.requests)
        finally:
            daemon.stop()


class TestHttps:
    def test_https_with_a_ca_file_and_without(self, tmp_path: Path, org_key: tuple[KeyPair, Path]) -> None:
        key, pub = org_key
        cert, cert_key = self_signed(tmp_path / "tls")
        server = BundleServer(tls=(cert, cert_key))
        try:
            server.publish("acme.tar.gz", org_bundle(tmp_path, "tls1", key))
            trusted = config_for(server, pub).replace('key = "org"\n', f'key = "org"\nca_file = "{cert}"\n', 1)
            daemon = start(tmp_path, config=trusted)
            try:
                wait_for(daemon, named("bundle_activated", revision="tls1"))
            finally:
                daemon.stop()
            untrusting = start(tmp_path, config=config_for(server, pub))
            try:
                failed = wait_for(untrusting, named("bundle_download_failed"))
                assert "CERTIFICATE_VERIFY_FAILED" in failed[0]["error"]
            finally:
                untrusting.stop()
        finally:
            server.close()


def _tampered(good: bytes, change: Callable[[dict[str, bytes]], None]) -> bytes:
    files = read_tarball(good)
    change(files)
    return write_tarball(files)


def data_bundle(tmp_path: Path, key: KeyPair, data: bytes) -> bytes:
    """A signed bundle whose org/data.json is then replaced by `data` (which the builder would refuse):
    verifying the signature parses it, so that refusal comes first."""
    source = policy_dir(tmp_path / f"src-data-{time.monotonic_ns()}", "org", ORG_RULES.format(rev="bad"), "{}")
    good = build(source, revision="bad", roots=["hookd/org", "org"], key=Key(key.algorithm, key.private))
    return _tampered(good, lambda files: files.update({"org/data.json": data}))


BAD_BUNDLES: dict[str, tuple[Callable[[Path, KeyPair, bytes], bytes], str]] = {
    "deeply nested data.json": (
        lambda t, k, _g: data_bundle(t, k, b"[" * 100_000 + b"]" * 100_000),
        "org/data.json: not valid JSON: nested too deeply",
    ),
    "data.json nested past the limit": (
        lambda t, k, _g: data_bundle(t, k, b"[" * 101 + b"]" * 101),
        "org/data.json: not valid JSON: nested more than 100 levels deep",
    ),
    "NaN in data.json": (
        lambda t, k, _g: data_bundle(t, k, b'{"n": NaN}'),
        "org/data.json: not valid JSON: NaN is not a JSON number",
    ),
    "corrupt gzip": (lambda _t, _k, good: good[:10] + b"\xff" * 50 + good[60:], "corrupt bundle archive"),
    "truncated": (lambda _t, _k, good: good[: len(good) // 2], "corrupt bundle archive"),
    "wrong key": (lambda t, _k, _g: org_bundle(t, "bad", make_key("RS256")), "does not verify with key 'org'"),
    "unsigned while a key is set": (lambda t, _k, _g: org_bundle(t, "bad", None), "is not signed"),
    "extra file": (
        lambda _t, _k, g: _tampered(g, lambda f: f.update({"org/x.rego": b"package hookd.org.x\n"})),
        "not in its signature",
    ),
    "missing file": (
        lambda _t, _k, g: _tampered(g, lambda f: f.pop("org/policy.rego")),
        "signature but not in the bundle",
    ),
    "tampered hash": (
        lambda _t, _k, g: _tampered(g, lambda f: f.update({"org/policy.rego": f["org/policy.rego"] + b"\n# x\n"})),
        "org/policy.rego: digest mismatch",
    ),
    "rego compile error": (lambda t, k, _g: org_bundle(t, "bad", k, extra="\nthis is not rego\n"), "do not compile"),
}


class TestRefusals:
    def test_each_bad_bundle_is_refused_with_its_reason_while_decisions_flow(
        self, tmp_path: Path, server: BundleServer, serving: RunningDaemon, org_key: tuple[KeyPair, Path]
    ) -> None:
        good = server.files["acme.tar.gz"]
        for i, (name, (make, reason)) in enumerate(BAD_BUNDLES.items(), start=1):
            server.publish("acme.tar.gz", make(tmp_path, org_key[0], good))
            refused = wait_for(serving, lambda evs, n=i: (r := named("bundle_refused")(evs)) and len(r) >= n and r)
            assert reason in refused[i - 1]["error"], (name, refused[i - 1])
            assert refused[i - 1]["serving"] == "r1"
            assert probe(serving).startswith("revision r1 [hookd.org:rev]"), name
        assert len(named("bundle_activated")(events(serving))) == 1
        assert len(serving.decisions(at_least=len(BAD_BUNDLES))) == len(BAD_BUNDLES)
        status = subprocess.run(
            [VENV_PYTHON, "-m", "hookd", "status", "--json", "--runtime-dir", str(serving.runtime_dir)],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        (bundle,) = json.loads(status.stdout)["bundles"]
        assert (bundle["name"], bundle["revision"], bundle["refusals"]) == ("acme", "r1", str(len(BAD_BUNDLES)))
        assert "do not compile" in bundle["last_error"] and bundle["next_poll"]
        assert {p["name"] for p in json.loads(status.stdout)["policy_sets"]} == {"acme", "default"}
        listed = subprocess.run(
            [VENV_PYTHON, "-m", "hookd", "policies", "--json", "--runtime-dir", str(serving.runtime_dir)],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        sets = {p["name"]: p["policy_set"] for p in json.loads(listed.stdout)["packages"]}
        assert sets == {"hookd.org": "acme", "hookd.demo": "default"}

    def test_a_python_policy_error_is_refused_and_a_good_python_policy_serves(
        self, tmp_path: Path, server: BundleServer, serving: RunningDaemon, org_key: tuple[KeyPair, Path]
    ) -> None:
        key = Key(org_key[0].algorithm, org_key[0].private)

        def with_python(rev: str, source: str) -> bytes:
            files = read_tarball(org_bundle(tmp_path, rev, None))
            files["org/guard.py"] = source.encode()
            return write_tarball(with_signature(files, key))

        server.publish(
            "acme.tar.gz",
            with_python("py-bad", "from hookd.policy_api import policy\nraise RuntimeError('broken at import')\n"),
        )
        refused = wait_for(serving, named("bundle_refused"))
        assert "broken at import" in refused[0]["error"], refused[0]
        assert probe(serving).startswith("revision r1")  # the last good bundle keeps serving
        good = (
            "from hookd.policy_api import deny, policy\n\n"
            "@policy(events=['BeforeTool'], kinds=['write'])\n"
            "def no_py_txt(input):\n"
            "    if input['tool']['input'].get('file_path', '').endswith('py.txt'):\n"
            "        return deny('python says no', rule='py-txt')\n"
        )
        server.publish("acme.tar.gz", with_python("py-good", good))
        wait_for(serving, named("bundle_activated", revision="py-good"))
        assert probe(serving, "py.txt").startswith("python says no [hookd.org.guard:py-txt]")
        assert probe(serving).startswith("revision py-good")

    def test_python_policies_need_a_signature_even_where_no_key_is_configured(self, tmp_path: Path) -> None:
        unsigned = tmp_path / "py.tar.gz"
        unsigned.write_bytes(
            _tampered(org_bundle(tmp_path, "p1", None), lambda f: f.update({"org/guard.py": b"x = 1\n"}))
        )
        config = f'[layers]\nwatch = false\n[bundles.nokey]\nfile = "{unsigned}"\n'
        daemon = start(tmp_path, config=config)
        try:
            refused = wait_for(daemon, named("bundle_refused", source="nokey"))
            assert "contains Python policies and is not signed" in refused[0]["error"]
            assert probe(daemon) == "writing secret.txt is not allowed" or probe(daemon, "fine.txt") == ""
        finally:
            daemon.stop()

    def test_overlapping_roots_of_two_bundles_are_refused_naming_both(
        self, tmp_path: Path, server: BundleServer, org_key: tuple[KeyPair, Path]
    ) -> None:
        key, pub = org_key
        server.publish("acme.tar.gz", org_bundle(tmp_path, "r1", key))
        server.publish("team.tar.gz", org_bundle(tmp_path, "t1", key, roots=["hookd/org/team"], package="org.team"))
        daemon = start(tmp_path, config=config_for(server, pub, sources=("acme", "team")))
        try:
            activated = wait_for(daemon, named("bundle_activated"))
            refused = wait_for(daemon, named("bundle_refused"))
            first = activated[0]["source"]
            other = "team" if first == "acme" else "acme"
            assert f"roots of bundle '{other}'" in refused[0]["error"]
            assert f"overlap roots of bundle '{first}'" in refused[0]["error"]
        finally:
            daemon.stop()


class TestActivationUnderLoad:
    @pytest.mark.timeout(400)
    def test_thousands_of_decisions_during_repeated_swaps_each_from_exactly_one_revision(
        self, tmp_path: Path, server: BundleServer, serving: RunningDaemon, org_key: tuple[KeyPair, Path]
    ) -> None:
        bundles = [org_bundle(tmp_path, f"r{i}", org_key[0]) for i in range(2, 12)]
        stop = threading.Event()
        replies: list[str] = []
        errors: list[BaseException] = []

        def hammer() -> None:
            while not stop.is_set():
                try:
                    replies.append(probe(serving))
                except BaseException as exc:  # any failure is a failed decision
                    errors.append(exc)

        workers = [threading.Thread(target=hammer) for _ in range(4)]
        for worker in workers:
            worker.start()
        try:
            for i, data in enumerate(bundles, start=2):
                server.publish("acme.tar.gz", data)
                wait_for(serving, named("bundle_activated", revision=f"r{i}"))
                decided = len(replies)  # some decisions on this revision before the next swap
                eventually(lambda: any(r.startswith(f"revision r{i} ") for r in replies[decided:]), timeout=60)  # noqa: B023
            eventually(lambda: len(replies) >= 2000, timeout=240, what="2000 decisions")
        finally:
            stop.set()
            for worker in workers:
                worker.join(timeout=30)
        assert errors == []
        assert len(replies) >= 2000
        seen = {reply.split(" [", 1)[0] for reply in replies}
        assert all(reason.startswith("revision r") for reason in seen)
        assert len(seen) >= 5  # decisions were made across many activations
        records = serving.decisions(at_least=len(replies), timeout=60)
        assert len(records) == len(replies)
        for record in records:
            assert record["decision"] == "deny"
            assert record["reason"].startswith(f"revision {record['revisions']['acme']} [hookd.org:rev]")


class TestRestartOffline:
    def test_an_offline_restart_serves_the_kept_bundle(
        self, tmp_path: Path, server: BundleServer, org_key: tuple[KeyPair, Path]
    ) -> None:
        key, pub = org_key
        server.publish("acme.tar.gz", org_bundle(tmp_path, "r5", key))
        config = config_for(server, pub)
        first = start(tmp_path, config=config)
        try:
            wait_for(first, named("bundle_activated", revision="r5"))
        finally:
            first.stop()
        state = first.state_dir
        assert state is not None
        server.close()  # offline from now on
        second = start(tmp_path, config=config, env={"XDG_STATE_HOME": str(state)})
        try:
            assert probe(second).startswith("revision r5 [hookd.org:rev]")  # at once: before any network
            wait_for(second, named("bundle_loaded_from_state", revision="r5"))
            wait_for(second, named("bundle_download_failed"))
            assert probe(second).startswith("revision r5")
        finally:
            second.stop()
        # `hookd eval` (no daemon) serves the same kept bundle too
        payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "probe.txt"})
        evaluated = subprocess.run(
            [VENV_PYTHON, "-m", "hookd", "--config", str(second.config_path), "eval", "--json"],
            input=json.dumps(payload), capture_output=True, text=True, timeout=60, check=True,
            env={**os.environ, "XDG_STATE_HOME": str(state)},
        )  # fmt: skip
        verdicts = json.loads(evaluated.stdout)["verdicts"]
        assert {
            "kind": "deny",
            "policy": "hookd.org",
            "rule": "rev",
            "message": "revision r5",
            "layer": "acme",
        } in verdicts


class TestLayers:
    def test_a_project_cannot_relax_an_organisation_deny_nor_override_its_rewrite(
        self, tmp_path: Path, org_key: tuple[KeyPair, Path]
    ) -> None:
        key, pub = org_key
        bundle_file = tmp_path / "acme.tar.gz"
        bundle_file.write_bytes(org_bundle(tmp_path, "r1", key))
        project = tmp_path / "proj"
        # The project reuses the organisation's package name, tries to rewrite the organisation's curl
        # rewrite back, and adds a deny of its own.
        policy_dir(project / ".hookd" / "policies", "org", """
rewrite contains {"id": "undo", "tool_input": {"command": "curl evil.example"}} if input.tool.kind == "shell"
rewrite contains {"id": "timeout", "tool_input": {"timeout": 5}} if input.tool.kind == "shell"
deny contains {"id": "no-make", "reason": "this project forbids make"} if {
	some cmd in input.shell.commands
	cmd.name == "make"
}""")  # fmt: skip
        config = (
            f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n'
            f'[bundles.acme]\nfile = "{bundle_file}"\nkey = "org"\n\n'
            f'[layers]\nwatch = false\nprojects = ["{project}"]\n'
        )
        daemon = start(tmp_path, DEMO_POLICIES, config=config)
        try:
            wait_for(daemon, named("bundle_activated", revision="r1"))

            def shell(command: str, cwd: Path) -> dict[str, Any]:
                payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": command})
                payload["cwd"] = str(cwd)
                result = run_shim(daemon.socket, "BeforeTool", payload, deadline_ms=25000, timeout=60)
                return json.loads(result.stdout) if result.stdout.strip() else {}

            assert shell("rm -rf build", project)["decision"] == "deny"
            assert "the organisation forbids rm" in shell("rm -rf build", project)["reason"]
            assert "this project forbids make" in shell("make all", project)["reason"]
            assert shell("make all", tmp_path) == {}  # the project layer applies inside the project only
            rewritten = shell("curl example.org", project)
            assert (
                rewritten["hookSpecificOutput"]["tool_input"]["command"] == "echo curl is rewritten by the organisation"
            )
            assert rewritten["hookSpecificOutput"]["tool_input"]["timeout"] == 5
            record = daemon.decisions(at_least=5)[-1]
            assert record["notes"][0].startswith("rewrite hookd.org:undo of layer project:")
            assert record["notes"][0].endswith("dropped: layer acme already rewrites tool_input.command")
            assert set(record["revisions"]) == {"acme", "default", f"project:{project}"}
            layers = {v["rule"]: v.get("layer") for v in record["verdicts"]}
            assert layers["curl"] == "acme" and layers["undo"] == f"project:{project}"
        finally:
            daemon.stop()


class TestHotReload:
    def test_local_edits_swap_in_and_broken_edits_are_refused(self, tmp_path: Path) -> None:
        policies = policy_dir(
            tmp_path / "policies", "local", 'deny contains "first" if endswith(input.tool.input.file_path, "probe.txt")'
        )
        daemon = start(tmp_path, policies, config="[layers]\nwatch = true\nwatch_debounce_ms = 100\n")
        rego = policies / "local" / "policy.rego"
        try:
            assert probe(daemon).startswith("first")
            second = rego.read_text().replace('"first"', '"second"')

            def edited() -> list[dict[str, Any]]:  # written again until the watcher (started meanwhile) sees it
                rego.write_text(second)
                return named("reloaded", requested_by="watch")(events(daemon))

            wait_for(daemon, lambda _: edited())
            assert probe(daemon).startswith("second")
            rego.write_text(rego.read_text() + "\nthis is not rego\n")
            failed = wait_for(daemon, named("reload_failed", requested_by="watch"))
            assert "policy.rego" in failed[0]["error"]
            assert probe(daemon).startswith("second")
        finally:
            daemon.stop()


def after_r2(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    activated = [i for i, e in enumerate(evs) if e.get("event") == "bundle_activated" and e.get("revision") == "r2"]
    return evs[activated[0] + 1 :] if activated else []


def test_with_workers_an_activated_bundle_reaches_every_process(
    tmp_path: Path, server: BundleServer, org_key: tuple[KeyPair, Path]
) -> None:
    """[daemon] workers = 2: the worker loads the kept bundles at start, and each new activation once the
    daemon has stored it; afterwards no process decides on the old revision."""
    key, pub = org_key
    server.publish("acme.tar.gz", org_bundle(tmp_path, "r1", key))
    daemon = start(tmp_path, config="workers = 2\n" + config_for(server, pub))  # into start()'s [daemon] table
    try:
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        wait_for(daemon, named("worker_serving"))
        first = [probe(daemon) for _ in range(60)]
        server.publish("acme.tar.gz", org_bundle(tmp_path, "r2", key))
        wait_for(daemon, named("bundle_activated", source="acme", revision="r2"))
        # r2 reloaded by the worker and the lane (logged after the activation), whose Rego starts in the background
        wait_for(daemon, lambda evs: len(named("worker_reloaded")(after_r2(evs))) >= 2)
        with ThreadPoolExecutor(4) as pool:
            second = list(pool.map(lambda _: probe(daemon), range(200)))
        records = daemon.decisions(at_least=260)
    finally:
        daemon.stop()
    assert all(r.startswith("revision r1 [hookd.org:rev]") for r in first)
    assert all(r.startswith("revision r2 [hookd.org:rev]") for r in second)
    assert {int(r["id"], 16) % 64 for r in records[60:]} == {0, 1}  # both processes decided on r2
    assert {r["revisions"]["acme"] for r in records[60:]} == {"r2"}
