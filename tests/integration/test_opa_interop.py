"""Interoperability with the real OPA (v1.22.4, built by ./dev with `go install`): bundles that
`opa build --signing-key` makes load and verify in hookd, and bundles hookd builds and signs are
accepted by `opa run --verification-key` (and a tampered one is refused by both)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from bundle_support import make_key, named, policy_dir, start, wait_for

from hookd.bundle.archive import read_tarball, write_tarball
from support import VENV_PYTHON, gemini_payload, require, run_shim

pytestmark = pytest.mark.timeout(400)  # subprocesses and real servers: slow on a loaded box

RULES = 'deny contains {"id": "no-rm", "reason": "interop says no"} if input.tool.kind == "shell"'
ALGORITHMS = ["RS256", "ES256", "HS256"]


@pytest.fixture(scope="module")
def opa() -> str:
    path = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(path) and Path(path).is_file(), "opa v1.22.4 (HOOKD_OPA_BIN)")
    return path


def hookd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VENV_PYTHON, "-m", "hookd", *args], capture_output=True, text=True, timeout=60, check=False)


def source_dir(tmp_path: Path) -> Path:
    root = policy_dir(tmp_path / "src", "interop", RULES, data='{"limit": 1.50, "names": ["a<b>", "é"]}')
    (root / ".manifest").write_text(json.dumps({"roots": ["hookd/interop", "interop"], "metadata": {"team": "sec"}}))
    return root


def key_args(tmp_path: Path, algorithm: str) -> tuple[str, str]:
    """(signing key, verification key) as both CLIs take them: PEM files, or the HMAC secret itself."""
    pair = make_key(algorithm)
    if algorithm.startswith("HS"):
        return pair.private, pair.public
    private, public = pair.write(tmp_path / "keys")
    return str(private), str(public)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_bundle_opa_built_and_signed_verifies_and_serves_in_hookd(opa: str, tmp_path: Path, algorithm: str) -> None:
    signing, verification = key_args(tmp_path, algorithm)
    bundle = tmp_path / "opa.tar.gz"
    built = subprocess.run(
        [opa, "build", "--bundle", ".", "-o", str(bundle), "--revision", "opa-7",
         "--signing-key", signing, "--signing-alg", algorithm],
        cwd=source_dir(tmp_path), capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    verified = hookd("bundle", "verify", str(bundle), "--verification-key", verification, "--signing-alg", algorithm)
    assert verified.returncode == 0, verified.stderr
    assert "revision 'opa-7'" in verified.stdout and f"signature verified ({algorithm}" in verified.stdout

    tampered = tmp_path / "tampered.tar.gz"
    files = read_tarball(bundle.read_bytes())
    name = next(n for n in files if n.endswith(".rego"))
    files[name] += b"\n# tampered\n"
    tampered.write_bytes(write_tarball(files))
    refused = hookd("bundle", "verify", str(tampered), "--verification-key", verification, "--signing-alg", algorithm)
    assert refused.returncode == 1 and "digest mismatch" in refused.stderr

    key_line = f'key_file = "{verification}"' if not algorithm.startswith("HS") else f'key = "{verification}"'
    config = (
        f'[keys.ops]\nalgorithm = "{algorithm}"\n{key_line}\n\n'
        f'[bundles.opa]\nfile = "{bundle}"\nkey = "ops"\n\n[layers]\nwatch = false\n'
    )
    daemon = start(tmp_path, config=config)
    try:
        wait_for(daemon, named("bundle_activated", source="opa", revision="opa-7"))
        payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "ls"})
        reply = json.loads(run_shim(daemon.socket, "BeforeTool", payload, deadline_ms=25000, timeout=60).stdout)
        assert reply["decision"] == "deny" and reply["reason"].startswith("interop says no [hookd.interop:no-rm]")
    finally:
        daemon.stop()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def opa_run(
    opa: str, bundle: Path, verification: str, algorithm: str, tmp_path: Path
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    log = (tmp_path / f"opa-{port}.log").open("wb")
    proc = subprocess.Popen(
        [opa, "run", "--server", "--addr", f"127.0.0.1:{port}", "--verification-key", verification,
         "--signing-alg", algorithm, "--bundle", str(bundle)],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return proc, port


def query(port: int, path: str, body: dict[str, object] | None = None, timeout: float = 90) -> dict[str, object]:
    end = time.monotonic() + timeout
    while True:
        try:
            data = json.dumps(body).encode() if body is not None else None
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/data/{path}", data=data, timeout=5) as response:
                return dict(json.loads(response.read()))
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.1)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_bundle_hookd_built_and_signed_is_accepted_by_opa_run(opa: str, tmp_path: Path, algorithm: str) -> None:
    signing, verification = key_args(tmp_path, algorithm)
    bundle = tmp_path / "hookd.tar.gz"
    built = hookd("bundle", "build", str(source_dir(tmp_path)), "-o", str(bundle), "--revision", "hk-3",
                  "--signing-key", signing, "--signing-alg", algorithm)  # fmt: skip
    assert built.returncode == 0, built.stderr
    proc, port = opa_run(opa, bundle, verification, algorithm, tmp_path)
    try:
        denied = query(port, "hookd/interop/deny", {"input": {"tool": {"kind": "shell"}}})
        assert denied == {"result": [{"id": "no-rm", "reason": "interop says no"}]}
        assert query(port, "interop") == {"result": {"limit": 1.5, "names": ["a<b>", "é"]}}
        manifest = query(port, "system/bundles")["result"]
        assert isinstance(manifest, dict)
        (entry,) = manifest.values()
        assert entry["manifest"]["revision"] == "hk-3" and entry["manifest"]["metadata"] == {"team": "sec"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    files = read_tarball(bundle.read_bytes())
    files["interop/data.json"] = b'{"limit": 2}'
    tampered = tmp_path / "tampered.tar.gz"
    tampered.write_bytes(write_tarball(files))
    proc, _ = opa_run(opa, tampered, verification, algorithm, tmp_path)
    try:
        assert proc.wait(timeout=90) != 0  # opa refuses to start on a bundle that fails verification
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "digest mismatch" in (tmp_path / f"opa-{_}.log").read_text()
