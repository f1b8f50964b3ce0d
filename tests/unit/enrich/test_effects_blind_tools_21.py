"""The mechanisms blind-tools-21's first run showed open (policies/README.md, "A twenty-first blind batch of the agents'
tools"), each with look-alikes that must stay as they were; spelled otherwise than the corpus's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.effects.fetches import instance_metadata
from hookd.enrich.tool_nesting import expanded, unglued
from tests.unit.enrich.test_tool_effects import HOME, enriched


def _ops(client: str, tool: str, tool_input: dict[str, Any], proj: Path) -> set[tuple[str, str]]:
    return {(str(e["op"]), str(e["path"])) for e in enriched(client, tool, tool_input, proj).facts.get("effects", [])}


# -- a call inside a call: the inner call's arguments, handed on as a JSON text, are judged ---------------------------


@pytest.mark.parametrize(
    ("client", "tool", "tool_input", "expected"),
    [
        ("kilo", "use_mcp_tool", {"server_name": "fs", "tool_name": "get_file_info",
                                  "arguments": json.dumps({"path": f"{HOME}/.aws/credentials"})},
         ("read", f"{HOME}/.aws/credentials")),
        ("claude", "mcp__gateway__call_tool", {"tool_name": "write_file",
                                              "arguments": json.dumps({"params": {"file_path": f"{HOME}/.bashrc"}})},
         ("write", f"{HOME}/.bashrc")),
        ("gemini", "mcp_hub_invoke", {"arguments": "  " + json.dumps({"filePath": f"{HOME}/.ssh/id_rsa"})},
         ("read", f"{HOME}/.ssh/id_rsa")),
    ],
)  # fmt: skip
def test_a_json_text_of_arguments_is_read_as_the_call_it_is(
    client: str, tool: str, tool_input: dict[str, Any], expected: tuple[str, str], tmp_path: Path
) -> None:
    assert expected in _ops(client, tool, tool_input, tmp_path.resolve())


def test_an_inner_call_that_runs_a_command_runs_it(tmp_path: Path) -> None:
    given = {"server_name": "shell", "tool_name": "run_command", "arguments": json.dumps({"command": "rm -rf ~/notes"})}
    deletes = [e for e in enriched("kilo", "use_mcp_tool", given, tmp_path).facts["effects"] if e["op"] == "delete"]
    assert deletes and deletes[0]["path"] == f"{HOME}/notes" and deletes[0]["recursive"]


@pytest.mark.parametrize(
    "tool_input",
    [
        {
            "server_name": "github",
            "tool_name": "get_issue",
            "arguments": '{"owner": "acme", "repo": "shop", "number": 4}',
        },
        {"message": "{not json", "title": "{x}"},  # a text that only starts like one
        {"body": json.dumps([{"path": "x"}])},  # a list is no call's arguments
    ],
)
def test_texts_that_are_no_paths_stay_texts(tool_input: dict[str, Any], tmp_path: Path) -> None:
    assert not [e for e in enriched("kilo", "use_mcp_tool", tool_input, tmp_path).facts.get("effects", [])
                if str(e["path"]).startswith(HOME)]  # fmt: skip


# -- a path given as a base and a member of it ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("mcp__rclone__operations_deletefile", {"fs": HOME, "remote": ".ssh/authorized_keys"},
         ("delete", f"{HOME}/.ssh/authorized_keys")),
        ("mcp__rclone__operations_rmdirs", {"fs": f"{HOME}/", "remote": "/Documents"}, ("delete", f"{HOME}/Documents")),
        ("mcp__rclone__operations_copyfile",
         {"srcFs": f"{HOME}/.aws", "srcRemote": "credentials", "dstFs": "s3:drop", "dstRemote": "c"},
         ("write", f"{HOME}/.aws/credentials")),
        ("mcp__rclone__operations_movefile", {"src_fs": "/etc", "src_remote": "hosts", "dst_fs": HOME,
                                              "dst_remote": ".bashrc"}, ("write", f"{HOME}/.bashrc")),
        ("mcp__rclone__operations_movefile",
         {"srcFs": f"{HOME}/.claude", "srcRemote": "settings.json", "dstFs": "/tmp", "dstRemote": "s.json"},
         ("move", f"{HOME}/.claude/settings.json")),
    ],
)  # fmt: skip
def test_a_base_and_its_member_are_one_path(
    tool: str, tool_input: dict[str, Any], expected: tuple[str, str], tmp_path: Path
) -> None:
    assert expected in _ops("claude", tool, tool_input, tmp_path.resolve())


def test_a_verb_glued_to_its_object_is_that_verb() -> None:
    assert unglued(frozenset({"operations", "deletefile"})) >= {"delete"}
    assert unglued(frozenset({"copyurl", "rmdirs"})) >= {"copy", "rm"}
    said = unglued(frozenset({"profile", "refiles"}))  # `pro` and `re` are no verb of hookd's
    assert not said & {"delete", "move", "copy", "write", "read", "rm"}


def test_a_remote_base_is_no_local_path_and_a_base_alone_stays_whole() -> None:
    assert expanded({"fs": "gdrive:", "remote": "backups"}) == {"fs": "gdrive:", "remote": "backups"}
    assert expanded({"srcFs": "/srv/site"}) == {"srcPath": "/srv/site"}
    assert expanded({"fs": "/p", "remote": "build/cache", "other": 1}) == {"path": "/p/build/cache", "other": 1}


def test_a_purge_in_the_project_stays_in_the_project(tmp_path: Path) -> None:
    proj = tmp_path.resolve()
    (proj / "build" / "cache").mkdir(parents=True)
    deletes = {p for op, p in _ops("droid", "mcp__rclone__operations_purge", {"fs": str(proj), "remote": "build/cache"},
                                   proj) if op == "delete"}  # fmt: skip
    assert deletes == {f"{proj}/build/cache"}


# -- a metadata service by its protocol's path, at any host -----------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://metadata.tencentyun.com/latest/meta-data/cam/security-credentials/r",  # a cloud's own name for it
        "http://169.254.169.254.nip.io/latest/meta-data/iam/security-credentials/",  # a DNS alias of the address
        "http://imds.corp.example/computeMetadata/v1/instance/service-accounts/default/token",
        "http://Metadata.Internal.Example/Latest/Meta-Data/",  # any case
        "https://api.metadata.cloud.ibm.com/identity/v1/token?version=2022-03-01",
    ],
)
def test_the_metadata_protocol_is_the_service_at_any_host(url: str) -> None:
    assert instance_metadata(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html",
        "https://registry.example.com/v2/latest/manifests/meta-data",
        "http://localhost:5173/latest/news",
        "https://api.github.com/repos/acme/shop/releases/latest",
    ],
)
def test_other_paths_are_no_metadata_service(url: str) -> None:
    assert not instance_metadata(url)


# -- an archive unpacked into a directory by a tool writes a tree whose names the archive holds ----------------------


def test_a_tool_unpacking_into_a_directory_writes_a_tree_there(tmp_path: Path) -> None:
    proj = tmp_path.resolve()
    (proj / "out").mkdir()
    for tool, given in (
        ("mcp__zipfile__extract_all", {"path": f"{proj}/a.zip", "extract_path": f"{proj}/out"}),
        ("mcp__archive__unzipfile", {"source": f"{proj}/a.zip", "destination": f"{proj}/out"}),
        ("mcp__files__untar", {"archive": f"{proj}/a.tgz", "target_dir": f"{proj}/out"}),
    ):
        trees = [e for e in enriched("claude", tool, given, proj).facts["effects"] if e.get("recursive")]
        assert [e["path"] for e in trees if e["op"] == "write"] == [f"{proj}/out"], tool


def test_other_writes_of_a_directory_are_no_tree(tmp_path: Path) -> None:
    proj = tmp_path.resolve()
    (proj / "out").mkdir()
    given = {"path": f"{proj}/out", "content": "x"}
    assert not [
        e for e in enriched("claude", "mcp__fs__write_file", given, proj).facts["effects"] if e.get("recursive")
    ]
