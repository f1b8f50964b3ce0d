"""`hookd replay --bundle`: a candidate bundle is verified as the daemon verifies one before anything is
replayed against it, and a store written by the real store writer from real pipeline decisions replays."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bundle_support import make_key

from hookd.assembly import build_pipeline, load_engine
from hookd.bundle.build import build
from hookd.bundle.signing import Key
from hookd.config import Config, LogConfig, ReplayConfig
from hookd.rollout.store import ReplayStore
from hookd.types import Caller, Deadline, HookRequest
from support import DEMO_POLICIES, gemini_payload

TIMEOUT = 60


def record(store: Path, names: list[str]) -> None:
    """BeforeTool writes of `names`, decided by the demo policies, written by the replay store."""
    config = Config()
    pipeline, engines = build_pipeline(config, load_engine(config, DEMO_POLICIES), probe=lambda _pid: False)
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
        await engines.current.aclose()

    asyncio.run(main())


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookd", "replay", *args],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=False,
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
