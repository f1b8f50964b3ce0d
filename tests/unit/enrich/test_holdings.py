"""What a home dot-tree file read holds (hookd.enrich.holdings): a credential store no rule names is marked by
the shape of its first bytes, bounded, never through a link or a FIFO; everyday files stay unmarked."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.holdings import _SHAPES, MAX_SNIFF, holds_credential, is_credential_key, mark_holdings
from support import ROOT

CREDENTIAL_TEXTS = [
    "[DEFAULT]\nhost = https://x.cloud.databricks.com\ntoken = dapi0123456789abcdef\n",  # INI
    '[default]\naccount = "x"\npassword = "hunter2"\n',  # TOML
    "hosts:\n  gitlab.com:\n    token: glpat-xxxxxxxxxxxxxxxxxxxx\n",  # YAML, nested
    '{"aliases": {"prod": {"url": "https://s3.example.net", "accessKey": "AK", "secretKey": "SK"}}}',  # JSON
    '{"auths": {"registry.example.net": {"auth": "dXNlcjpwYXNz"}}}',
    '<Server><Host>h</Host><Pass encoding="base64">aHVudGVyMg==</Pass></Server>\n',  # XML
    "export API_KEY=abc123def\n",  # dotenv
    "client_secret: s3cr3t-value\n",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n",  # PEM
    "note\nAKIAABCDEFGHIJKLMNOP\n",  # a token prefix
]
PLAIN_TEXTS = [
    "[user]\nname = A\nemail = a@example.net\nsigningkey = ABC123\n",
    '{"editor.tokenColorCustomizations": {"comments": "#888"}, "max_tokens": 4096}',
    "token_url: https://auth.example.net/token\nauth_type: oauth\n",
    "password: ${DB_PASSWORD}\ntoken: <your token>\napi_key: ''\nsecret: xxxxxxxx\n",
    "auth:\n  method: browser\n",
    "use_keyring: true\npassword: null\n",
]


@pytest.mark.parametrize("text", CREDENTIAL_TEXTS)
def test_credential_shapes_are_found(text: str) -> None:
    assert holds_credential(text)


@pytest.mark.parametrize("text", PLAIN_TEXTS)
def test_settings_placeholders_and_lookalike_keys_are_not(text: str) -> None:
    assert not holds_credential(text)


@pytest.mark.parametrize(
    ("key", "credential"),
    [("accessKey", True), ("aws_secret_access_key", True), ("authtoken", True), ("Pass", True),
     ("key_bindings", False), ("token_type", False), ("passwordPolicy", False), ("ssh_key", False)],
)  # fmt: skip
def test_the_last_word_of_a_key_decides(key: str, credential: bool) -> None:
    assert is_credential_key(key) is credential


def test_the_token_shapes_are_model_secrets_patterns() -> None:
    data = json.loads((ROOT / "policies" / "model_secrets" / "data.json").read_text())
    assert _SHAPES.pattern == "|".join(p["regex"] for p in data["patterns"])
    assert all(re.compile(p["regex"]) for p in data["patterns"])


def _read(path: str, **more: Any) -> dict[str, Any]:
    return {"op": "read", "path": path, "known": True, "recursive": False, "to": "", "program": "Read",
            "via": "tool", "class": "home", **more}  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return tmp_path


def test_a_home_dot_file_holding_a_token_is_marked(home: Path) -> None:
    (home / ".databrickscfg").write_text(CREDENTIAL_TEXTS[0])
    (home / ".vimrc").write_text("set number\n")
    effects = [_read(str(home / ".databrickscfg")), _read(str(home / ".vimrc"))]
    marked = mark_holdings(effects, str(home), str(home / "proj"))
    assert [e.get("holds") for e in marked] == ["credential", None]


def test_a_search_of_a_home_dot_directory_looks_at_its_own_files(home: Path) -> None:
    store = home / ".config" / "glab-cli"
    store.mkdir(parents=True)
    (store / "config.yml").write_text(CREDENTIAL_TEXTS[2])
    (home / ".config" / "empty").mkdir()
    effects = [_read(str(store), recursive=True), _read(str(home / ".config" / "empty"), recursive=True)]
    marked = mark_holdings(effects, str(home), str(home / "proj"))
    assert [e.get("holds") for e in marked] == ["credential", None]


def test_project_files_links_fifos_and_bytes_past_the_head_are_not_read(home: Path) -> None:
    (home / "proj" / ".env.local").write_text("TOKEN=abc123\n")  # the project's: judged by name elsewhere
    (home / ".real").write_text(CREDENTIAL_TEXTS[0])
    (home / ".link").symlink_to(home / ".real")  # O_NOFOLLOW: a link is not followed at decision time
    os.mkfifo(home / ".fifo")  # never opened for reading in a way that blocks
    (home / ".long").write_text("x = 1\n" * (MAX_SNIFF // 6 + 1) + "token = abc123\n")
    (home / "plain.cfg").write_text(CREDENTIAL_TEXTS[0])  # not in a dot-tree
    paths = [home / "proj" / ".env.local", home / ".link", home / ".fifo", home / ".long", home / "plain.cfg"]
    marked = mark_holdings([_read(str(p)) for p in paths], str(home), str(home / "proj"))
    assert [e.get("holds") for e in marked] == [None] * len(paths)
