"""gRPC's AF_INET probe under the unit's RestrictAddressFamilies=AF_UNIX, confirmed with strace.

systemd enforces RestrictAddressFamilies= with a seccomp filter: socket() with a family outside the list
fails with EAFNOSUPPORT. The test installs the same filter (classic BPF through prctl, as systemd does
when no manager runs here) and starts the daemon as the default user unit starts it (`hookd service
install`'s ExecStart and Environment), under strace. gRPC's C core (cygrpc) tries AF_INET and AF_INET6
sockets at start-up; they are refused, and the daemon still answers a shim and the control plane
(`hookd status`, over gRPC on a Unix socket)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import restrict_families

from support import SHIM, SHIM_PYTHON, gemini_payload, require


def test_grpc_inet_probe_is_refused_and_harmless() -> None:
    strace = shutil.which("strace")
    require(strace is not None and os.uname().machine == "x86_64", "strace on x86_64")
    assert strace is not None
    root = Path(tempfile.mkdtemp(prefix="hkdfam", dir="/tmp"))
    xdg, home = root / "xdg", root / "home"
    xdg.mkdir(mode=0o700)
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "TMPDIR"))}
    env |= {"HOME": str(home), "XDG_RUNTIME_DIR": str(xdg)}
    done = subprocess.run([sys.executable, "-m", "hookd", "service", "install", "--unit-dir", str(root / "units"),
                           "--no-start"], env=env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    service = (root / "units" / "hookd.service").read_text()
    (families,) = re.findall(r"^RestrictAddressFamilies=(.*)$", service, re.M)
    assert families.split() == ["AF_UNIX"]  # the default config needs no network
    exec_start = re.findall(r"^ExecStart=(.*)$", service, re.M)[0].split()
    env |= dict(v.split("=", 1) for v in re.findall(r"^Environment=(.*)$", service, re.M))
    (xdg / "hookd" / "tmp").mkdir(mode=0o700, parents=True)  # RuntimeDirectory=hookd hookd/tmp
    trace, log = root / "trace", root / "daemon.log"
    with log.open("wb") as out:
        filtered = [sys.executable, restrict_families.__file__, ",".join(families.split())]
        proc = subprocess.Popen([*filtered, strace, "-f", "-qq", "-e", "trace=socket", "-e", "signal=none", "-o",
                                 str(trace), *exec_start], env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)  # fmt: skip
    runtime = xdg / "hookd"
    try:
        deadline = time.monotonic() + 60
        while not (runtime / "control.sock").exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None and (runtime / "control.sock").exists(), log.read_text()
        payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "rm -rf /"})
        argv = [SHIM_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool", "--socket", str(runtime / "hook.sock")]
        shim = subprocess.run([*argv, "--deadline-ms", "20000"], input=json.dumps(payload).encode(),
                              capture_output=True, timeout=60, check=False)  # fmt: skip
        assert json.loads(shim.stdout)["decision"] == "deny", (shim, log.read_text())
        status = subprocess.run([sys.executable, "-m", "hookd", "status", "--runtime-dir", str(runtime)], env=env,
                                capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
        assert status.returncode == 0 and "decisions: deny 1" in status.stdout, status
    finally:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        for child in children.read_text().split() if proc.poll() is None else []:
            os.kill(int(child), 15)  # the daemon, which strace runs
        proc.wait(timeout=60)
    calls = trace.read_text()
    refused = re.findall(r"socket\((AF_INET6?), .*= -1 EAFNOSUPPORT", calls)
    assert "AF_INET" in refused, calls  # the probe happened, and the filter refused it
    assert not re.search(r"socket\(AF_INET6?, [^\n]*= \d", calls), calls  # no inet socket was ever opened
    shutil.rmtree(root, ignore_errors=True)
