"""review44's findings closed: IPython's escapes (`;f a`, `/f x`, `obj?`) are read as its input transformer reads
them, before the cell's Python is compiled (a `;print hi` line made the whole cell fail to parse, so a cell with
`shutil.rmtree(~)` in it passed); `ipython -c CODE` runs CODE as a cell; an env file's comment naming a credential,
or an identifier's number, and a settings value that carries a credential under any key, hold a secret."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.holdings import holds_no_secret_settings, holds_no_secret_values
from hookd.enrich.kernel_code import kernel_code_line


@pytest.mark.parametrize(
    ("cell", "called"),
    [
        (";print hi", "print('hi')"),
        (",print a b", "print('a', 'b')"),
        ("/os.system 'rm -rf ~'", "os.system('rm -rf ~')"),
    ],
)
def test_an_escape_line_is_the_call_ipython_makes(cell: str, called: str) -> None:
    assert shlex.split(kernel_code_line(cell)) == ["python3", "-c", called]


def test_a_help_line_runs_nothing_and_keeps_the_rest() -> None:
    line = kernel_code_line("import shutil\nshutil?\nshutil.rmtree('/x')\n")
    assert "shutil.rmtree" in line


def test_a_cell_that_does_not_compile_runs_none_of_its_python() -> None:
    # IPython compiles the transformed cell whole: a SyntaxError stops all of its Python
    assert kernel_code_line("import shutil\nshutil.rmtree('/x')\n)(\n") == ""


def test_ipython_c_runs_its_code_as_a_cell(tmp_path: Path) -> None:
    line = "ipython -c \"import shutil, os; shutil.rmtree(os.path.expanduser('~'))\""
    assert [e["path"] for e in ops(line, tmp_path, "delete")] == ["/home/u"]
    assert [e["path"] for e in ops("ipython -c '!rm -rf ~/Documents'", tmp_path, "delete")] == ["/home/u/Documents"]


@pytest.mark.parametrize(
    "text",
    [
        "# admin password is correct-horse-battery-staple\nPORT=3000\n",
        "DOOR_PIN=4821\nPORT=3000\n",
        "BANK_ACCOUNT=9876543210\n",
        "PORT=3000  # the token is hunter2\n",
    ],
)
def test_an_env_file_telling_a_secret_in_a_comment_or_an_identifier_holds_one(text: str, tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(text)
    assert not holds_no_secret_values(str(path))


def test_an_env_file_of_quantities_and_prose_holds_none(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# local dev server\nPORT=3000\nWORKERS=4\nDEBUG=1\n")
    assert holds_no_secret_values(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "[az]\ntype = azureblob\nsas_url = https://acct.blob.core.windows.net/c?sv=2021-08-06&sig=q9Zx%2Babc\n",
        "user = alice:pw\n",
        "extraHeader = Authorization: Basic dXNlcjpwYXNz\n",
        "githubPackagesAccess=4f9c2d7e1a0b8c3d6e5f4a3b2c1d0e9f8a7b6c5d\n",
        "sonar.login=squ_1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b\n",
    ],
)
def test_a_settings_value_carrying_a_credential_under_any_key_holds_one(text: str, tmp_path: Path) -> None:
    path = tmp_path / "rclone.conf"
    path.write_text(text)
    assert not holds_no_secret_settings(str(path))


def test_settings_of_plain_values_hold_none(tmp_path: Path) -> None:
    path = tmp_path / "gradle.properties"
    path.write_text("org.gradle.caching=true\norg.gradle.jvmargs=-Xmx2g -Dfile.encoding=UTF-8\n")
    assert holds_no_secret_settings(str(path))


@pytest.mark.parametrize(
    ("line", "privileged"),
    [("time sudo -nl -p 'pw: '", False), ("nice sudo -l", False), ("time sudo bash -c id", True),
     ("time sudo -pl bash", True)],
)  # fmt: skip
def test_sudos_own_mode_is_read_after_a_launcher(line: str, privileged: bool, tmp_path: Path) -> None:
    # the spelling harness's `time` family: `time sudo -nl` was asked where `sudo -nl` passed
    assert bool(ops(line, tmp_path, "privilege")) is privileged
