"""`hookd bundle build | sign | verify | inspect` as a user runs them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from bundle_support import make_key, policy_dir

from support import VENV_PYTHON

pytestmark = pytest.mark.timeout(400)  # subprocesses and real servers: slow on a loaded box


def hookd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VENV_PYTHON, "-m", "hookd", *args], capture_output=True, text=True, timeout=60, check=False)


def test_build_sign_verify_inspect(tmp_path: Path) -> None:
    source = policy_dir(tmp_path / "src", "acme", 'deny contains "no" if false', data='{"n": 1}')
    private, public = make_key("ES256").write(tmp_path / "keys")
    bundle = tmp_path / "b.tar.gz"

    built = hookd(
        "bundle", "build", str(source), "-o", str(bundle), "-r", "v9", "--root", "hookd/acme", "--root", "acme"
    )
    assert built.returncode == 0 and built.stdout.startswith(f"built {bundle} (") and "unsigned" in built.stdout
    assert hookd("bundle", "verify", str(bundle)).stdout.endswith("unsigned\n")
    refused = hookd("bundle", "verify", str(bundle), "--verification-key", str(public), "--signing-alg", "ES256")
    assert refused.returncode == 1
    reason = "bundle is not signed (no .signatures.json) but a verification key is configured"
    assert refused.stderr == f"hookd: {bundle}: refused: {reason}\n"

    signed = hookd(
        "bundle", "sign", str(bundle), "--signing-key", str(private), "--signing-alg", "ES256", "--scope", "prod"
    )
    assert signed.returncode == 0, signed.stderr
    ok = hookd(
        "bundle", "verify", str(bundle), "--verification-key", str(public), "--signing-alg", "ES256", "--scope", "prod"
    )
    assert ok.returncode == 0 and "revision 'v9', 4 files, signature verified (ES256, kid default)" in ok.stdout
    wrong_scope = hookd("bundle", "verify", str(bundle), "--verification-key", str(public), "--signing-alg", "ES256")
    assert wrong_scope.returncode == 1 and "scope 'prod' does not match the configured scope ''" in wrong_scope.stderr

    info = json.loads(hookd("bundle", "inspect", str(bundle), "--json").stdout)
    assert (info["revision"], info["roots"]) == ("v9", ["hookd/acme", "acme"])
    assert [f["name"] for f in info["files"]] == [".manifest", ".signatures.json", "acme/data.json", "acme/policy.rego"]
    assert info["signature"] == {"alg": "ES256", "kid": "default", "scope": "prod", "files": 3}
    text = hookd("bundle", "inspect", str(bundle)).stdout
    assert "revision: 'v9'" in text and "acme/policy.rego" in text


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = hookd("bundle", "build", str(tmp_path / "nope"), "-o", str(tmp_path / "x.tar.gz"))
    assert (missing.returncode, missing.stderr) == (2, f"hookd: {tmp_path / 'nope'} is not a directory\n")
    (tmp_path / "junk.tar.gz").write_bytes(b"junk")
    junk = hookd("bundle", "inspect", str(tmp_path / "junk.tar.gz"))
    assert (junk.returncode, junk.stderr) == (2, "hookd: not a gzipped tarball (no gzip header)\n")
    no_key = hookd("bundle", "sign", str(tmp_path / "junk.tar.gz"), "--signing-key", str(tmp_path / "k.pem"))
    assert no_key.returncode == 2 and no_key.stderr == f"hookd: key file {tmp_path / 'k.pem'} does not exist\n"
