"""The checked-in gRPC stubs are what scripts/gen_protos.sh makes from protos/ today."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support import ROOT

GENERATED = ROOT / "daemon" / "hookd" / "v1"


def test_checked_in_stubs_match_the_protos(tmp_path: Path) -> None:
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gen_protos.sh"), str(tmp_path)],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    fresh = sorted(p.relative_to(tmp_path / "hookd" / "v1") for p in (tmp_path / "hookd" / "v1").iterdir())
    checked_in = sorted(p.relative_to(GENERATED) for p in GENERATED.iterdir() if p.name.startswith("hookd_pb2"))
    assert fresh == checked_in, "run scripts/gen_protos.sh: the set of generated files changed"
    stale = [str(p) for p in fresh if (tmp_path / "hookd" / "v1" / p).read_bytes() != (GENERATED / p).read_bytes()]
    assert stale == [], f"stale stubs {stale}: run scripts/gen_protos.sh and commit the result"


def test_the_stubs_import_as_hookd_v1() -> None:
    from hookd.v1 import hookd_pb2, hookd_pb2_grpc

    assert hookd_pb2.DESCRIPTOR.package == "hookd.v1"
    assert {s.name for s in hookd_pb2.DESCRIPTOR.services_by_name.values()} == {"Control", "Hook"}
    assert hasattr(hookd_pb2_grpc, "ControlStub")
    assert hasattr(hookd_pb2_grpc, "HookStub")
