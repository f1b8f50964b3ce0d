"""Telling a headless agent session from an interactive one, from a fake /proc."""

from __future__ import annotations

from pathlib import Path

from hookd.agentproc import session_is_interactive


def fake_proc(tmp_path: Path, procs: dict[int, tuple[int, list[str], str]]) -> str:
    """procs: pid -> (parent pid, argv, what fd 0 points at)."""
    root = tmp_path / "proc"
    for pid, (ppid, argv, stdin) in procs.items():
        d = root / str(pid)
        (d / "fd").mkdir(parents=True)
        (d / "stat").write_text(f"{pid} (some (odd) name) S {ppid} 1 1 0 -1\n")
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (d / "fd" / "0").symlink_to(stdin)
    return str(root)


GEMINI = ["node", "--max-old-space-size=4096", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js"]


def test_headless_prompt_flag(tmp_path: Path) -> None:
    proc = fake_proc(
        tmp_path, {50: (40, ["python", "shim.py"], "/dev/null"), 40: (1, [*GEMINI, "-p", "hi"], "/dev/null")}
    )
    assert session_is_interactive(50, proc) is False


def test_interactive_terminal(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {50: (45, ["python"], "pipe:[1]"), 45: (40, ["bash", "-c", "x"], "pipe:[1]"),
                                40: (1, GEMINI, "/dev/pts/3")})  # fmt: skip
    assert session_is_interactive(50, proc) is True


def test_prompt_interactive_flag_wins(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {50: (40, ["python"], "/dev/null"), 40: (1, [*GEMINI, "-i", "hello"], "/dev/null")})
    assert session_is_interactive(50, proc) is True


def test_no_agent_among_ancestors(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {50: (40, ["python"], "/dev/null"), 40: (1, ["bash"], "/dev/pts/1")})
    assert session_is_interactive(50, proc) is None


def test_vanished_process(tmp_path: Path) -> None:
    assert session_is_interactive(12345, str(tmp_path)) is None
