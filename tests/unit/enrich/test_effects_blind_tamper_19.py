"""Mechanisms blind-tamper-19's first run missed (policies/README.md, "Blind batches' misses closed (fix50)"): the
standard library's command-line modules as the programs python's `modules` table maps them to."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects, ops


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [
        ("python3 -m json.tool ~/.factory/settings.json", "read", "/home/u/.factory/settings.json"),
        ("python3 -m json.tool a.json ~/.claude/settings.json", "write", "/home/u/.claude/settings.json"),
        ("python -m json.tool --indent 2 in.json ~/.gemini/settings.json", "write", "/home/u/.gemini/settings.json"),
        ("python3 -m base64 ~/.aws/credentials", "read", "/home/u/.aws/credentials"),
        ("python3 -m gzip -d ~/.bashrc.gz", "write", "/home/u/.bashrc"),
        ("python3 -m compileall /usr/lib/python3/dist-packages", "write", "/usr/lib/python3/dist-packages"),
        ("python3 -m zipapp ~/.ssh -o /tmp/k.pyz", "read", "/home/u/.ssh"),
        ("python3 -m pickletools -o ~/.bashrc data.pkl", "write", "/home/u/.bashrc"),
        ("python3 -m venv ~/.local/bin", "write", "/home/u/.local/bin"),
    ],
)
def test_a_module_does_what_its_documentation_says(command: str, op: str, path: str, tmp_path: Path) -> None:
    found = [e for e in ops(command, tmp_path, op) if e["path"] == path]
    assert found and not any(e.get("guess") for e in found)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m json.tool ~/.factory/settings.json",
        "python3 -m json.tool ~/.claude/settings.json > /tmp/s.json",
        "python3 -m tokenize src/app.py",
        "python3 -m ast src/app.py",
        "python3 -m calendar 2026 12",
    ],
)
def test_a_module_read_is_no_guess_and_no_write(command: str, tmp_path: Path) -> None:
    found = effects(command, tmp_path)
    assert not any(e.get("guess") for e in found)
    assert not any(e["op"] == "write" and e["path"].startswith("/home/u") for e in found)


def test_a_module_no_table_has_still_guesses_its_operands(tmp_path: Path) -> None:
    assert any(e.get("guess") for e in ops("python3 -m somemod ~/.ssh/id_ed25519", tmp_path, "read"))
