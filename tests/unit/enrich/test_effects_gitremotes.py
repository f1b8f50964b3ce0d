"""A remote's `ext::` URL is a command git runs (hookd.enrich.effects.gitremotes, fixes43): stored by `git remote
add`/`set-url` or `git config remote.x.url` it is judged when stored, and a later fetch, pull or push runs the command
transports the configuration holds; `GIT_ALLOW_PROTOCOL` naming ext in a startup file lets every later fetch run one;
an executing key whose value runs only a catalogued program of no consequence (`jq .`) or the project's own hooks
directory is no executing write."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects, ops

from hookd.enrich.effects.gitremotes import own_tool, stored_url_runs
from hookd.enrich.gitconfig_text import executing_keys

_EXT = "'ext::sh -c rm% -rf% ~/Documents'"


def _deletes(line: str, proj: Path) -> list[str]:
    return [str(e["path"]) for e in ops(line, proj, "delete")]


@pytest.mark.parametrize(
    "line",
    [
        f"git remote add mirror {_EXT}",
        f"git remote set-url origin {_EXT}",
        f"git remote set-url --push origin {_EXT}",
        f"git config remote.backup.url {_EXT}",
        f"git -c remote.x.url={_EXT} fetch x",
    ],
)
def test_an_ext_url_stored_is_the_command_it_runs(line: str, proj: Path) -> None:
    assert _deletes(line, proj) == ["/home/u/Documents"]


@pytest.fixture
def stored(proj: Path) -> Path:
    (proj / ".git").mkdir()
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = https://github.com/acme/shop.git\n'
        '[remote "mirror"]\n\turl = "ext::sh -c rm% -rf% ~/Documents"\n'
    )
    return proj


@pytest.mark.parametrize("line", ["git fetch mirror", "git pull --rebase mirror main", "git push", "git ls-remote"])
def test_a_later_contact_runs_the_stored_transport(line: str, stored: Path) -> None:
    assert _deletes(line, stored) == ["/home/u/Documents"]


@pytest.mark.parametrize("line", ["git status", "git log -1", "git diff"])
def test_a_command_that_contacts_no_remote_runs_none(line: str, stored: Path) -> None:
    assert not _deletes(line, stored)


def test_a_plain_url_runs_nothing(proj: Path) -> None:
    assert not ops("git remote add upstream https://github.com/acme/shop.git", proj, "exec")
    assert not stored_url_runs("remote.origin.url", "git@github.com:acme/shop.git")
    assert stored_url_runs("remote.origin.pushurl", "ext::sh -c id")


def test_a_config_file_s_ext_url_is_an_executing_key() -> None:
    assert executing_keys('[remote "x"]\n\turl = ext::sh -c id\n') == [("remote.x.url", "ext::sh -c id")]
    assert executing_keys('[remote "x"]\n\turl = https://github.com/a/b\n') == []


def test_a_startup_file_allowing_ext_is_a_deferred_exec(proj: Path) -> None:
    found = effects("echo 'export GIT_ALLOW_PROTOCOL=ext:https:ssh' >> ~/.bashrc", proj)
    assert any(e["op"] == "exec" and e.get("deferred") and e.get("startup") == "/home/u/.bashrc" for e in found)
    plain = effects("echo 'export GIT_ALLOW_PROTOCOL=https:ssh' >> ~/.bashrc", proj)
    assert not any(e["op"] == "exec" for e in plain)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("diff.json.textconv", "jq ."),
        ("core.pager", "cat"),
    ],
)
def test_a_value_of_the_project_s_own_tool_runs_nothing_of_consequence(key: str, value: str, proj: Path) -> None:
    assert own_tool(key, value)
    [write] = ops(f"git config {key} '{value}'", proj, "write")
    assert write["executes"] is False


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.hooksPath", ".husky"),  # the hooks already in it run (review46)
        ("core.hooksPath", "/tmp/h"),
        ("core.hooksPath", "~/.cache/hooks"),
        ("core.hooksPath", "../elsewhere"),
        ("diff.json.textconv", 'sh -c "rm -rf ~"'),
        ("diff.json.textconv", "python3 conv.py"),
        ("core.pager", "/tmp/x"),
        ("core.sshCommand", "ssh -i k"),
        ("core.pager", "less; rm -rf ~"),
        ("core.pager", "rm -rf src"),
        ("core.pager", "tee ~/.bashrc"),
        ("diff.x.textconv", "sort -o out"),
        ("diff.x.textconv", "jq . ~/.aws/credentials"),
    ],
)
def test_a_value_that_runs_code_stays_executing(key: str, value: str) -> None:
    assert not own_tool(key, value)


@pytest.fixture
def submodules(proj: Path) -> Path:
    """A work tree whose `.gitmodules` (committed, or written earlier) names an ext:: URL (review47)."""
    (proj / ".git").mkdir()
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (proj / "src").mkdir()
    (proj / ".gitmodules").write_text(
        '[submodule "vendor/ui"]\n\tpath = vendor/ui\n\turl = ext::sh -c rm% -rf% ~/Documents\n'
    )
    return proj


@pytest.mark.parametrize(
    "line",
    [
        "git -c protocol.ext.allow=always submodule update --init",
        "GIT_ALLOW_PROTOCOL=ext git submodule update --init --recursive",
        "git submodule sync && git -c protocol.allow=always submodule update",
        "cd src && git -c protocol.ext.allow=always fetch --recurse-submodules",
    ],
)
def test_a_submodule_url_of_the_work_tree_is_contacted(line: str, submodules: Path) -> None:
    assert "/home/u/Documents" in _deletes(line, submodules)


def test_a_plain_submodule_url_runs_nothing(submodules: Path) -> None:
    (submodules / ".gitmodules").write_text('[submodule "x"]\n\tpath = x\n\turl = https://github.com/acme/ui.git\n')
    assert not ops("git submodule update --init", submodules, "exec")
