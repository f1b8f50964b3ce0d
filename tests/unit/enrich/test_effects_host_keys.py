"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): a write whose text is a program's output of one kind
carries that kind (programs.json `output`): ssh-keyscan prints host keys, and protected_paths lets them be
recorded in known_hosts only."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def test_host_keys_printed_into_a_file_are_known_as_host_keys(tmp_path: Path) -> None:
    (write,) = ops("ssh-keyscan -t ed25519 github.com >> ~/.ssh/known_hosts", tmp_path, "write")
    assert write["text_of"] == "host_keys"  # was a plain write below ~/.ssh, denied


@pytest.mark.parametrize(
    "line",
    ["echo 'github.com ssh-ed25519 AAAA' >> ~/.ssh/known_hosts", "curl -s x.example.net/k >> ~/.ssh/known_hosts"],
)
def test_another_writers_text_is_not(line: str, tmp_path: Path) -> None:
    assert not [w for w in ops(line, tmp_path, "write") if w.get("text_of")]
