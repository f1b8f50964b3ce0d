#!/usr/bin/env bash
# Regenerate the Python stubs of protos/hookd/v1/*.proto with grpcio-tools (pinned in requirements.lock).
# Usage: scripts/gen_protos.sh [OUT_DIR]   (default: daemon/, so the stubs land in daemon/hookd/v1/ and
# import as hookd.v1.hookd_pb2). tests/unit/test_control_protos.py regenerates into a temporary
# directory and fails when the checked-in stubs differ. PYTHON picks the interpreter (default: the venv's).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=${PYTHON:-$root/.cache/venv/bin/python}
out=${1:-$root/daemon}
mkdir -p "$out"
cd "$root/protos"
"$python" -m grpc_tools.protoc -I . --python_out="$out" --grpc_python_out="$out" --pyi_out="$out" hookd/v1/*.proto
