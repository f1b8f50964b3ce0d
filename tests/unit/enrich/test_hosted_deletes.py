"""What a hosted tool's verb does to what its name names (enrich/hosted_deletes.py): a store dropped or emptied, every
key flushed, and a flag's value read as the servers read it; the look-alikes keep no hosted delete."""

from __future__ import annotations

from typing import Any

import pytest

from hookd.enrich.hosted_deletes import hosted_deletes, truthy


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__s3__delete_bucket", {"bucket": "media-prod", "force": "true"}),
        ("mcp__s3__delete_bucket", {"bucket": "media-prod", "force": "Yes"}),
        ("mcp__gcs__remove_bucket", {"name": "logs", "recursive": 1}),
        ("mcp__s3__empty_bucket", {"bucket": "media-prod"}),
        ("mcp__redis__flushall", {}),
        ("mcp__redis__flushdb", {"host": "cache.prod.example.com"}),
        ("mcp__redis__flush_all", {"url": "redis://10.0.4.2:6379/0"}),
        ("mcp__mongo__drop_database", {"database": "shop"}),
        ("mcp__postgres__drop_schema", {"schema": "public"}),
        ("mcp__mongo__drop_collection", {"collection": "orders"}),
        ("mcp__bq__delete_dataset", {"dataset": "analytics"}),
        ("mcp__db__truncate_table", {"table": "audit_log"}),
        ("mcp__k8s__namespaces_delete", {"name": "staging"}),
        ("mcp__cache__flush_db", {"server": "cache.prod.example.com:6379"}),
        ("mcp_s3_empty_bucket", {"bucket": "backups"}),  # Gemini's names: the server's words before the tool's
        ("mcp_redis_flushall", {}),
        ("mcp__kubernetes__resources_delete", {"apiVersion": "v1", "kind": "Namespace", "name": "production"}),
    ],
)
def test_a_verb_that_takes_everything_is_a_hosted_delete(tool: str, tool_input: dict[str, Any]) -> None:
    assert [e["what"] for e in hosted_deletes(tool, tool_input)] == ["hosted"]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__s3__delete_bucket", {"bucket": "media-prod", "force": "false"}),
        ("mcp__s3__delete_bucket", {"bucket": "media-prod", "force": 0}),
        ("mcp__s3__delete_bucket", {"bucket": "scratch"}),  # refused by S3 while it holds objects
        ("mcp__s3__delete_object", {"bucket": "media-prod", "key": "a.png", "force": "true"}),
        ("mcp__redis__flushall", {"host": "localhost"}),
        ("mcp__redis__flushdb", {"url": "redis://127.0.0.1:6379/1"}),
        ("mcp__redis__get", {"key": "session:1"}),
        ("mcp__logs__flush_buffer", {}),
        ("mcp__db__drop_index", {"index": "orders_by_date"}),
        ("mcp__fs__empty_directory", {"path": "build"}),
        ("mcp__s3__list_buckets", {"all": "true"}),
        ("mcp__gitlab__remove_project_member", {"project": "acme/api", "user": "bob"}),
        ("mcp__checks__check_if_empty", {"queue": "jobs"}),
        ("mcp__kubernetes__resources_delete", {"apiVersion": "v1", "kind": "Pod", "name": "web", "namespace": "dev"}),
        ("mcp__kubernetes__resources_get", {"apiVersion": "v1", "kind": "Namespace", "name": "production"}),
    ],
)
def test_one_thing_removed_or_a_local_server_is_no_hosted_delete(tool: str, tool_input: dict[str, Any]) -> None:
    assert not hosted_deletes(tool, tool_input)


@pytest.mark.parametrize(("value", "true"), [(True, True), ("TRUE", True), ("on", True), ("1", True), (1, True),
                                               ("no", False), ("", False), (2, False), (None, False)])  # fmt: skip
def test_a_flag_is_read_as_a_servers_boolean_parser_reads_it(value: object, true: bool) -> None:
    assert truthy(value) is true
