"""Where the sockets live by default: the user's private login dir before a name in /tmp that another
user could create first (docs/protocol.md, "Who the shim talks to")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookd.config.runtime_dir import default_runtime_dir, in_shared_dir


def test_xdg_runtime_dir_comes_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/4242")
    assert default_runtime_dir(tmp_path) == Path("/run/user/4242/hookd")


def test_the_private_login_dir_before_tmp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    login = tmp_path / str(os.getuid())
    login.mkdir(mode=0o700)
    assert default_runtime_dir(tmp_path) == login / "hookd"
    login.chmod(0o755)  # not private: not the login dir we trust
    assert default_runtime_dir(tmp_path) == Path(f"/tmp/hookd-{os.getuid()}")
    login.rmdir()
    assert default_runtime_dir(tmp_path) == Path(f"/tmp/hookd-{os.getuid()}")


def test_tmp_is_a_shared_dir_and_a_private_one_is_not(tmp_path: Path) -> None:
    assert in_shared_dir(Path("/tmp/hookd-0"))
    tmp_path.chmod(0o700)
    assert not in_shared_dir(tmp_path / "hookd")
