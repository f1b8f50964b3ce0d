"""A program's settings file named as a credential store, read whole, holds none when every line is a section, a
comment or a setting whose key names no credential (enrich/holdings.py `holds_no_secret_settings`, blind-benign-17:
a project `.npmrc` of `registry=` only). A token, a password, a URL's password, a line that is no setting, a dotenv
file: judged by its name as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.holdings import holds_no_secret_settings, mark_holdings


@pytest.mark.parametrize(
    "text",
    [
        "registry=https://registry.npmjs.org/\nauto-install-peers=true\n",
        "; npm\n@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken=${NPM_TOKEN}\n",
        "[global]\nindex-url = https://pypi.org/simple\n",
    ],
)
def test_settings_holding_no_credential_hold_none(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".npmrc"
    path.write_text(text)
    assert holds_no_secret_settings(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=npm_abcdefghijklmnop\n",
        "_auth=dXNlcjpwYXNz\n",
        "[remote]\ntype = azureblob\naccount = acme\nkey = bm90LWEtcmVhbC1rZXk=\n",  # rclone's bare `key`
        "registry=https://user:hunter22@npm.example.com/\n",
        "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc\n",
        "registry=https://registry.npmjs.org/\nmachine example.com login me password x\n",
        "(test fixture)\n",
        "",
        "PATH=/usr/bin\x00AWS_SESSION=abc\n",
    ],
)
def test_settings_with_a_credential_or_another_shape_are_not_known(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".npmrc"
    path.write_text(text)
    assert not holds_no_secret_settings(str(path))


def test_a_dotenv_file_or_a_file_of_code_is_never_a_settings_file(tmp_path: Path) -> None:
    for name in (".env", ".env.npmrc", "settings.py"):
        (tmp_path / name).write_text("registry=https://registry.npmjs.org/\n")
        assert not holds_no_secret_settings(str(tmp_path / name))


def test_the_read_is_marked(tmp_path: Path) -> None:
    path = tmp_path / "proj" / ".npmrc"
    path.parent.mkdir()
    path.write_text("registry=https://registry.npmjs.org/\n")
    marked = mark_holdings([{"op": "read", "path": str(path)}], str(tmp_path / "home"), str(path.parent))
    assert marked[0]["holds"] == "no-secret"
