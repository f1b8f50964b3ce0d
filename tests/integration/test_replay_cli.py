"""`hookd replay --bundle`: a candidate bundle is verified as the daemon verifies one before anything is
replayed against it, and a store written by the real store writer from real pipeline decisions replays."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from bundle_support import make_key, policy_dir

from hookd.assembly import build_pipeline, load_engine
from hookd.bundle.build import build
from hookd.bundle.signing import Key
from hookd.bundle.store import BundleStore
from hookd.config import Config, LogConfig, ReplayConfig, parse_config
from hookd.rollout.store import ReplayStore
from hookd.types import Caller, Deadline, HookRequest
from support import DEMO_POLICIES, gemini_payload

TIMEOUT = 60


def record(store: Path, names: list[str], config: Config | None = None) -> None:
    """BeforeTool writes of `names`, decided by the demo policies (else by `config`'s policy set), written
    by the replay store."""
    config = config or Config(daemon=replace(Config().daemon, policies=DEMO_POLICIES))
    pipeline, engines = build_pipeline(config, load_engine(config), probe=lambda _pid: False)
    writer = ReplayStore(ReplayConfig(enabled=True, path=store), LogConfig())

    async def main() -> None:
        writer.start()
        for name in names:
            payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name})
            request = HookRequest(
                "gemini", "BeforeTool", json.dumps(payload).encode(), {}, "/tmp", Caller(0, 0, 1), Deadline.after(10)
            )
            writer.offer(await pipeline.handle(request))
        await writer.close()
        await engines.current.close()

    asyncio.run(main())


def replay(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookd", "replay", *args],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": "", **(env or {})},
        check=False,
    )  # fmt: skip


def test_a_signed_candidate_bundle_replays_and_a_badly_signed_one_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "replay"
    record(store, ["secret.txt", "fine.txt", "other.txt"])
    candidate = tmp_path / "candidate"
    shutil.copytree(DEMO_POLICIES, candidate)
    rego = candidate / "demo" / "policy.rego"
    rego.write_text(rego.read_text().replace('endswith(input.tool.input.file_path, "secret.txt")', "false"))
    key, other = make_key("RS256"), make_key("RS256")
    public = key.write(tmp_path / "key")[1]
    wrong = other.write(tmp_path / "other")[1]
    bundle = tmp_path / "candidate.tar.gz"
    bundle.write_bytes(build(candidate, revision="c1", roots=["hookd/demo"], key=Key(key.algorithm, key.private)))

    done = replay("--store", str(store), "--bundle", str(bundle), "--verification-key", str(public),
                  "--fail-on", "deny-to-allow", "--json")  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["candidate"] == f"bundle {bundle} (revision 'c1', signed)"
    assert (report["replayed"], report["by_transition"]) == (3, {"deny-to-allow": 1})

    refused = replay("--store", str(store), "--bundle", str(bundle), "--verification-key", str(wrong))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith(f"hookd: --bundle {bundle}: refused: "), refused.stderr

    missing = replay("--store", str(tmp_path / "none"), "--policies", str(candidate))
    assert missing.returncode == 2 and "no replay store at" in missing.stderr
    bad = replay("--store", str(store), "--policies", str(candidate), "--fail-on", "allow-to-nothing")
    assert bad.returncode == 2 and "unknown transition 'allow-to-nothing'" in bad.stderr


def deny_write(name: str, rule: str) -> str:
    return f'deny contains {{"id": "{rule}", "reason": "no"}} if endswith(input.tool.input.file_path, "{name}")'


def test_a_candidate_replaces_one_bundle_of_a_layered_configuration_while_the_other_layers_stay(
    tmp_path: Path,
) -> None:
    """The organisation's bundle `acme` (kept in the state directory, as a daemon keeps it) over the user's
    demo policies; the candidate `acme` denies new.txt instead of org.txt. Against the configured set with
    the candidate in place of `acme`, only those two change: the user's secret.txt rule still decides."""
    key = make_key("RS256")
    public = key.write(tmp_path / "key")[1]
    state = tmp_path / "state"
    current = policy_dir(tmp_path / "acme", "org", deny_write("org.txt", "no-org"))
    data = build(current, revision="acme-1", roots=["hookd/org"], key=Key(key.algorithm, key.private))
    (state / "hookd").mkdir(parents=True)
    BundleStore(state / "hookd" / "bundles").save("acme", data, etag="", revision="acme-1")
    config_file = tmp_path / "config.toml"
    config_file.write_text(
        f'[daemon]\npolicies = "{DEMO_POLICIES}"\nstate_dir = "{state / "hookd"}"\n'
        f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{public}"\n'
        '[bundles.acme]\nurl = "http://127.0.0.1:9/acme.tar.gz"\nkey = "org"\n'
    )
    config = parse_config(tomllib.loads(config_file.read_text()), source=config_file)
    store = tmp_path / "replay"
    record(store, ["secret.txt", "org.txt", "new.txt", "fine.txt"], config)
    candidate = policy_dir(tmp_path / "acme-next", "org", deny_write("new.txt", "no-new"))

    def run(*args: str) -> tuple[int, dict[str, object], str]:
        env = {"HOOKD_CONFIG": str(config_file)}
        done = replay("--store", str(store), "--policies", str(candidate), *args, env=env)
        return done.returncode, json.loads(done.stdout) if done.returncode < 2 else {}, done.stderr

    code, layered, _ = run("--replaces", "acme", "--json", "--fail-on", "deny-to-allow")
    assert code == 1 and layered["replayed"] == 4
    assert layered["by_transition"] == {"deny-to-allow": 1, "allow-to-deny": 1}, layered
    assert layered["by_rule"] == {"hookd.org:no-org": 1, "hookd.org:no-new": 1}
    assert "in place of layer 'acme' of the configured set (with default)" in str(layered["candidate"])

    whole = run("--json")[1]  # without --replaces the candidate is the whole set: the user's rule goes too
    assert whole["by_transition"] == {"deny-to-allow": 2, "allow-to-deny": 1}, whole
    added = run("--add", "--json")[1]  # beside acme, as one more bundle: only new.txt changes
    assert added["by_transition"] == {"allow-to-deny": 1}, added

    code, _, error = run("--replaces", "nope")
    assert code == 2 and error.strip().splitlines() == [
        "hookd: --replaces nope: the configured policy set has no such layer (it has: acme, default)"
    ]


def one_line_error(done: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for part in parts:
        assert part in lines[0], lines[0]


def test_an_empty_torn_or_damaged_store_is_a_clear_error_not_a_pass(tmp_path: Path) -> None:
    """issue 25: `hookd replay` exited 0 on an empty or torn store (nothing compared, reported as no change)
    and printed a traceback for a line nested too deeply; each is now a one-line error, exit 2."""
    store = tmp_path / "store"
    store.mkdir()
    args = ["--policies", str(DEMO_POLICIES), "--fail-on", "any", "--store", str(store)]
    one_line_error(replay(*args), "holds no recorded decision")  # empty
    (store / "replay-1.jsonl").write_text('{"id": "a", "input": {"ev')  # only a torn line
    one_line_error(replay(*args), "holds no recorded decision")
    record(store, ["a.txt"])
    assert replay(*args).returncode == 0  # a torn last line of an older segment is skipped
    (store / "replay-1.jsonl").write_text('{"id": "x"}\n{"id": "a", "input": {"ev')
    one_line_error(replay(*args), "replay-1.jsonl line 1 is not a stored decision")  # damaged, not torn
    (store / "replay-1.jsonl").write_text('{"id": "d", "input": ' + "[" * 5000 + "]" * 5000 + "}\n")
    one_line_error(replay(*args), "replay-1.jsonl line 1 is not a stored decision: nested too deeply")
    (store / "replay-1.jsonl").write_text('{"id": "d", "input": {"x": ' + "[" * 300 + "]" * 300 + "}}\n")
    one_line_error(replay(*args), "replay-1.jsonl line 1 nests more than 108 levels deep")


def test_a_file_in_the_store_that_is_not_a_segment_is_left_alone(tmp_path: Path) -> None:
    """issue 25: `replay-x.jsonl` in the store stopped the daemon from starting (ValueError reading its name)."""
    from support import start_daemon

    store = tmp_path / "store"
    store.mkdir(mode=0o700)
    (store / "replay-x.jsonl").write_text("not ours\n")
    daemon = start_daemon(tmp_path, DEMO_POLICIES, f'[replay]\nenabled = true\npath = "{store}"\n')
    try:
        assert daemon.proc.poll() is None and "Traceback" not in daemon.log()
    finally:
        daemon.stop()
    assert (store / "replay-x.jsonl").read_text() == "not ours\n"
    record(store, ["b.txt"])
    done = replay("--policies", str(DEMO_POLICIES), "--store", str(store))
    assert done.returncode == 0 and "replayed 1" in done.stdout.lower().replace(":", ""), done.stdout + done.stderr
