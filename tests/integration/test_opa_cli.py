"""`hookd test --engine opa`: the same Rego tests and case files, decided by the real OPA server (a
private one the command starts, or the one --opa-url names)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from corpus_share import OPA_SHARE, in_share
from opa_server import opa_binary, running_opa

from support import ROOT, gemini_payload

HOOKD = [sys.executable, "-m", "hookd"]


def hookd(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOOKD_CONFIG": "", "HOOKD_OPA_BIN": opa_binary()}
    done = subprocess.run([*HOOKD, *args], capture_output=True, timeout=timeout, env=env, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def failing_policy_dir(root: Path) -> Path:
    (root / "p.rego").write_text('package hookd.p\ndeny contains "no" if input.tool.input.file_path == "x"\n')
    (root / "p_test.rego").write_text(
        "package hookd.p\n"
        'test_ok if { count(deny) == 1 with input as {"tool": {"input": {"file_path": "x"}}} }\n'
        'test_wrong if { count(deny) == 2 with input as {"tool": {"input": {"file_path": "x"}}} }\n'
        "_twice = 1 if true\n"
        "_twice = 2 if true\n"
        "test_error if { _twice == 1 }\n"  # a conflict: an evaluation error in OPA (1 / 0 is only undefined there)
        "todo_test_later if { false }\n"
    )
    (root / "cases").mkdir()
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "x", "content": "x"})
    (root / "cases" / "c.json").write_text(json.dumps([
        {"name": "denied", "payload": payload, "expect": {"outcome": "deny", "rules": ["hookd.p:deny"]}},
        {"name": "wrong", "payload": payload, "expect": {"outcome": "allow"}},
    ]))  # fmt: skip
    return root


def opa_share(root: Path) -> Path:
    """A copy of the default policies whose corpus holds its OPA share (tests/corpus_share.py): every Rego test and
    case file, and 1 corpus line in OPA_SHARE."""
    shutil.copytree(ROOT / "policies", root, ignore=shutil.ignore_patterns("__pycache__"))
    for path in (root / "corpus").glob("*.jsonl"):
        lines = [line for line in path.read_text().splitlines() if line.strip() and in_share(line, share=OPA_SHARE)]
        path.write_text("".join(f"{line}\n" for line in lines))
    return root


# The whole corpus runs embedded in tests/integration/test_corpus_verdicts.py (a met gap fails too); here the real
# OPA decides its share, so that both engines passing every case they run is the same verdict on each of them. The
# limit only keeps a stuck run from hanging the suite (the whole corpus took 1,094 s beside the agents' tests).
@pytest.mark.timeout(1260)
def test_default_policies_pass_the_same_tests_under_opa(tmp_path: Path) -> None:
    policies = opa_share(tmp_path / "policies")
    remote = hookd("test", "--engine", "opa", str(policies), timeout=1200)
    assert remote.returncode == 0, remote.stdout + remote.stderr
    closing = re.search(
        r"^(\d+) passed, 0 failed(, \d+ known gaps)?(, \d+ outside the aims)?$", remote.stdout.splitlines()[-1]
    )
    assert closing and int(closing[1]) > 3000, remote.stdout.splitlines()[-1]  # the share, not an empty corpus


def test_failures_under_opa_are_named_and_set_the_exit_code(tmp_path: Path) -> None:
    with running_opa() as server:
        result = hookd("test", "--engine", "opa", "--opa-url", server.url, str(failing_policy_dir(tmp_path)))
        assert result.returncode == 1, result.stderr
        lines = result.stdout.splitlines()
        assert lines[-1] == "2 passed, 3 failed"
        assert "FAIL  data.hookd.p.test_wrong: undefined" in lines
        assert any(line.startswith("ERROR data.hookd.p.test_error") for line in lines)
        assert any(line.startswith("FAIL  c.json#1 wrong: outcome deny, expected allow") for line in lines)
        # The case files ran last, on the set without its tests: no test module stays on the server.
        with urllib.request.urlopen(f"{server.url}/v1/policies", timeout=5) as response:
            ids = sorted(p["id"] for p in json.load(response)["result"])
        assert ids == ["hookd/_router.rego", "hookd/p.rego"]


def test_opa_url_needs_the_opa_engine() -> None:
    result = hookd("test", "--opa-url", "http://127.0.0.1:1", str(ROOT / "policies"))
    assert result.returncode != 0
    assert "--opa-url needs --engine opa" in result.stderr
