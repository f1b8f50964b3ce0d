"""The units `hookd service install` writes, run by a real systemd user manager (Debian's systemd).

systemd is not PID 1 here, so tests/service_manager.py starts `systemd --user` in a private mount
namespace and drives the units as a user would: the first shim call starts the daemon through its socket
and gets its decision, a reload and a stop go through the manager, and every decision is in the log.
A container may refuse some mount-namespace directives even for `/bin/true` (this one refuses
ProtectKernelTunables and ProtectKernelLogs with 226/NAMESPACE); the driver probes for that and drops only
those, in a drop-in; the test says which and fails if any other directive had to go.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from support import ROOT, SHIM, SHIM_PYTHON, require

DRIVER = ROOT / "tests" / "service_manager.py"
MOUNT_DIRECTIVES = {"ProtectKernelTunables", "ProtectKernelLogs", "ProtectClock", "ProtectHostname"}


def test_the_hardened_units_run_under_a_real_user_manager() -> None:
    tools = ["unshare", "mount", "systemctl", "systemd-run"]
    require(all(shutil.which(t) for t in tools) and Path("/lib/systemd/systemd").exists(), "systemd and unshare")
    require(os.geteuid() == 0, "root (a private mount namespace for the user manager)")
    workdir = Path(tempfile.mkdtemp(prefix="hkdmgr", dir="/tmp"))
    try:
        done = subprocess.run(
            ["unshare", "-m", sys.executable, str(DRIVER), str(workdir), SHIM_PYTHON, str(SHIM)],
            capture_output=True, text=True, timeout=300, check=False, cwd=ROOT,
        )  # fmt: skip
        manager_log = (workdir / "manager.log").read_text(errors="replace")[-3000:]
        assert done.returncode == 0, (done.stderr[-3000:], manager_log)
        seen = json.loads(done.stdout)
        report = json.dumps(seen, indent=1) + "\n" + manager_log
        assert set(seen["refused"]) <= MOUNT_DIRECTIVES, report
        assert seen["install"][0] == 0 and seen["sockets_started"][0] == 0, report
        # Socket activation: nothing runs until the first call, which starts the daemon and gets its deny.
        assert seen["before_first_call"] == "inactive", report
        first = seen["first"]["reply"]
        assert first["decision"] == "deny" and "rm-rf-root" in first["reason"], report
        assert seen["after_first_call"] == "active", report
        assert seen["second"]["rc"] == 0 and seen["second"]["reply"] == {}, report  # Gemini's allow: no output
        # Type=notify: a reload goes through the manager (RELOADING=1 … READY=1) and the daemon still decides.
        assert seen["reload"][0] == 0 and seen["after_reload"] == "active", report
        assert seen["third"]["reply"]["decision"] == "deny", report
        heavy = seen["heavy"]["reply"]
        assert heavy["decision"] == "deny" and "rm-rf-outside-project" in heavy["reason"], report
        assert int(heavy["reason"].rsplit("(decision ", 1)[1][:16], 16) % 64 == 1, report  # the lane's slot
        assert seen["status"][0] == 0 and "decisions: allow 1, deny 3" in seen["status"][1], report
        assert "lane:      " in seen["status"][1] and "(1 heavy requests taken)" in seen["status"][1], report
        assert "restarted" not in seen["status"][1], report  # the lane started once, under the unit's filters
        assert seen["lane_nice"] == 10, report
        assert seen["stop"][0] == 0 and seen["after_stop"] == "inactive", report  # a clean exit on SIGTERM
        assert seen["logged"] == ["deny", "allow", "deny", "deny"], report
        assert seen["planted_ran"] == [], report  # a hookd/ in $HOME or on PYTHONPATH is not what the unit starts
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
