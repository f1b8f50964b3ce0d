"""hookd.runtime.isolated: a process hookd starts imports this hookd, from /, whatever is planted where it started."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookd import __version__
from hookd.runtime import isolated

PLANTED = "import pathlib\npathlib.Path({marker!r}).write_text('ran')\nprint('planted hookd')\n"


def plant(directory: Path) -> Path:
    marker = directory / "ran"
    (directory / "hookd").mkdir(parents=True)
    for name in ("__init__.py", "__main__.py"):
        (directory / "hookd" / name).write_text(PLANTED.format(marker=str(marker)))
    return marker


def test_a_child_runs_this_hookd_whatever_is_planted_in_its_parents_cwd_or_pythonpath(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd, on_path = tmp_path / "cwd", tmp_path / "path"
    markers = [plant(cwd), plant(on_path)]
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "path", [str(cwd), *sys.path])  # what `python -m` run in `cwd` gives the parent
    argv = isolated.module_command("hookd")
    assert argv[1] == "-I" and argv[-1] == "hookd" and str(cwd) not in argv[-2]
    done = subprocess.run([*argv, "--version"], cwd=isolated.SAFE_CWD, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(on_path)}, check=False)  # fmt: skip
    assert done.stdout.strip() == f"hookd {__version__}", done
    assert [m for m in markers if m.exists()] == []


def test_the_daemon_command_is_isolated() -> None:
    assert isolated.serve_command("/venv/bin/python", "-B") == ["/venv/bin/python", "-I", "-B", "-m", "hookd"]


def test_serve_takes_the_working_directory_off_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), "", "relative", *sys.path])
    isolated.forget_working_directory()
    assert str(tmp_path) not in sys.path and "" not in sys.path
    assert str(tmp_path / "relative") in sys.path  # made absolute: it means what it meant where it started
