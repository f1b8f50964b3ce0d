"""An env file already there, written again keeping every line it had and adding only names its template lists
(enrich/env_template.py `template_kept`, blind-benign-17): more of the template filled in, no secret lost. A line
taken away or changed, a name the template does not list, a variable that runs code: still a write."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.env_template import mark_templates, template_kept

TEMPLATE = "DATABASE_URL=postgresql://localhost/app\nREDIS_URL=redis://localhost\nSTRIPE_SECRET_KEY=sk_test_x\n"
BEFORE = "DATABASE_URL=postgresql://postgres:postgres@localhost:5433/app_test\n"


@pytest.fixture
def env_test(tmp_path: Path) -> Path:
    (tmp_path / ".env.example").write_text(TEMPLATE)
    path = tmp_path / ".env.test"
    path.write_text(BEFORE)
    return path


def test_lines_added_from_the_template_keeping_the_file_are_the_template_filled_in(env_test: Path) -> None:
    after = BEFORE + "# fake values\nREDIS_URL=redis://localhost:6380\nSTRIPE_SECRET_KEY=sk_test_fake\n"
    assert template_kept(str(env_test), [after]) == str(env_test.parent / ".env.example")
    effects = [{"op": "write", "path": str(env_test)}]
    mark_templates(effects, {}, lambda _p: [after])
    assert effects[0]["template"] == str(env_test.parent / ".env.example")


@pytest.mark.parametrize(
    "after",
    [
        "REDIS_URL=redis://localhost:6380\n",  # the file's line taken away
        "DATABASE_URL=postgresql://evil@example.net/app\nREDIS_URL=redis://x\n",  # the file's line changed
        BEFORE + "SENTRY_DSN=https://k@sentry.example/1\n",  # a name the template does not list
        BEFORE + "NODE_OPTIONS=--require ./x.js\n",  # a variable that runs code
        BEFORE + "echo hi\n",  # no assignment
        BEFORE,  # nothing added
        BEFORE + "REDIS_URL=redis://x\nDATABASE_URL=postgresql://evil@x.net/a\n",  # set again: the last wins
    ],
)
def test_any_other_rewrite_is_no_template(env_test: Path, after: str) -> None:
    assert template_kept(str(env_test), [after]) is None


def test_a_link_or_a_file_not_there_is_no_kept_template(tmp_path: Path, env_test: Path) -> None:
    link = tmp_path / ".env.local"
    link.symlink_to(env_test)
    after = BEFORE + "REDIS_URL=redis://x\n"
    assert template_kept(str(link), [after]) is None
    assert template_kept(str(tmp_path / ".env.new"), [after]) is None


def test_a_text_written_whole_without_a_file_tool_is_judged_the_same(env_test: Path) -> None:
    """An MCP server's write or the shell's: the text written is what the write leaves or adds (an append)."""
    effects = [{"op": "write", "path": str(env_test)}]
    mark_templates(effects, {str(env_test): BEFORE + "REDIS_URL=redis://x\n"})
    assert effects[0]["template"] == str(env_test.parent / ".env.example")
    effects = [{"op": "write", "path": str(env_test)}]
    mark_templates(effects, {str(env_test): "REDIS_URL=redis://x\n"})  # the file's own line not shown: not known
    assert "template" not in effects[0]
