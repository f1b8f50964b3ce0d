"""The mechanisms blind-tools-15's first run showed open (policies/README.md, "A fifteenth blind batch of the agents'
tools"), each with look-alikes that must stay as they were; spelled otherwise than the corpus's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.effects.languages import follow_code
from tests.unit.enrich.test_tool_effects import enriched


@pytest.mark.parametrize(
    ("sql", "reaches"),
    [
        # MySQL and MariaDB run an executable comment's text: a drop or a whole-table delete inside one
        ("/*!32312 DROP DATABASE IF EXISTS*/ `shop`;", True),
        ("SELECT 1; /*!TRUNCATE audit_log*/", True),
        ("/*M!100100 delete from sessions */;", True),
        # a plain comment and an optimizer hint stay inert, and a dump's header of settings reaches nothing
        ("SELECT id FROM users /* drop table users */ WHERE id = 3", False),
        ("SELECT /*+ MAX_EXECUTION_TIME(1000) */ id FROM orders WHERE id = 9", False),
        ("/*!40101 SET NAMES utf8mb4 */;\n/*!40014 SET FOREIGN_KEY_CHECKS=0 */;", False),
    ],
)
def test_an_executable_comment_is_sql(sql: str, reaches: bool) -> None:
    assert follow_code("sql", sql).known is not reaches


def _hosted(tool: str, tool_input: dict[str, object], proj: Path) -> list[str]:
    event = enriched("claude", tool, tool_input, proj)
    return [str(e["name"]) for e in event.facts.get("effects", []) if e.get("what") == "hosted"]


@pytest.mark.parametrize(
    ("tool", "tool_input", "deleted"),
    [
        # a delete pushed through or taking the contents along: the whole resource is gone
        ("mcp__storage__remove_bucket", {"name": "media-prod", "recursive": True}, ["media-prod"]),
        ("mcp__registry__destroy_repository", {"repository": "acme/api", "purge": True}, ["acme/api"]),
        ("mcp__warehouse__drop_dataset", {"dataset": "analytics", "force": True}, ["analytics"]),
        # forcing one thing through: a container stopped as it is removed
        ("mcp__docker__remove_container", {"container_id": "web", "force": True}, []),
        # one named thing removed, a listing, a local directory (the paths' effects judge it)
        ("mcp__storage__delete_object", {"bucket": "media-prod", "key": "a.png"}, []),
        ("mcp__kubernetes__pods_delete", {"name": "web-1", "namespace": "dev"}, []),
        ("mcp__storage__list_buckets", {"all": True}, []),
        ("mcp__fs__delete_directory", {"path": "build", "recursive": True}, []),
    ],
)
def test_a_hosted_resource_deleted_with_what_it_holds(
    tool: str, tool_input: dict[str, object], deleted: list[str], proj: Path
) -> None:
    assert _hosted(tool, tool_input, proj) == deleted
