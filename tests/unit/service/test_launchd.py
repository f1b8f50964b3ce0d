"""The launchd agent: a plist that plistlib reads back, written atomically, removed again."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

from hookd.config import Config
from hookd.service import launchd


def test_agent_plist_is_valid_and_keeps_the_daemon_alive(tmp_path: Path) -> None:
    path = launchd.install(Config(), tmp_path, start=False)
    assert path == tmp_path / "dev.hookd.daemon.plist"
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == "dev.hookd.daemon"
    # isolated (hookd.runtime.isolated): a hookd/ in $HOME or on PYTHONPATH is not what launchd starts
    assert agent["ProgramArguments"][:6] == [sys.executable, "-I", "-B", "-m", "hookd", "serve"]
    assert agent["WorkingDirectory"] == "/"
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] is True
    assert agent["Umask"] == 0o077
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left
    assert launchd.uninstall(tmp_path) == path and not path.exists()
    assert launchd.uninstall(tmp_path) is None
