"""GeminiDialect.parse: a hook payload -> NormalisedEvent, or a DialectError with a one-line message."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookd.dialects.gemini import GEMINI_EVENTS, GeminiDialect, tool_kind
from hookd.errors import DialectError
from hookd.types import Caller, Deadline, Event, HookRequest, ToolKind

DIALECT = GeminiDialect()
CALLER = Caller(uid=1000, gid=1000, pid=4242, ppid=4241)

# The BeforeTool sample of the contract (§1.3), verbatim.
BEFORE_TOOL_SAMPLE = (
    b'{"session_id":"3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10","transcript_path":"/home/alice/.gemini/tmp/my-project/'
    b'chats/session-2026-08-21T16-16-3f0c2a9e.jsonl","cwd":"/home/alice/my-project","hook_event_name":"BeforeTool",'
    b'"timestamp":"2026-08-21T16:17:03.512Z","tool_name":"write_file","tool_input":{"file_path":"test.txt",'
    b'"content":"Hello World"}}'
)


def request(
    event: str, payload: bytes | dict[str, Any], env: dict[str, str] | None = None, cwd: str = "/shim"
) -> HookRequest:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return HookRequest(
        client="gemini",
        event=event,
        payload=raw,
        env=env if env is not None else {"HOME": "/home/alice"},
        cwd=cwd,
        caller=CALLER,
        deadline=Deadline.after(5),
    )


def parse_error(event: str, payload: bytes | dict[str, Any]) -> str:
    with pytest.raises(DialectError) as info:
        DIALECT.parse(request(event, payload))
    text = str(info.value)
    assert "\n" not in text and text == text.strip()
    return text


def test_before_tool_sample() -> None:
    env = {"GEMINI_PROJECT_DIR": "/home/alice/my-project", "HOME": "/home/alice"}
    event = DIALECT.parse(request("BeforeTool", BEFORE_TOOL_SAMPLE, env))
    assert event.client == "gemini"
    assert event.event is Event.BEFORE_TOOL
    assert event.tool is not None
    assert (event.tool.name, event.tool.kind) == ("write_file", ToolKind.WRITE)
    assert event.tool.input == {"file_path": "test.txt", "content": "Hello World"}
    assert event.session_id == "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10"
    assert event.cwd == "/home/alice/my-project"
    assert event.project_dir == "/home/alice/my-project"
    assert event.caller == CALLER
    assert event.facts == {"home": "/home/alice"}
    assert event.payload == json.loads(BEFORE_TOOL_SAMPLE)
    document = event.input_document()
    assert document["tool"] == {"name": "write_file", "kind": "write", "input": event.tool.input}
    assert document["session"]["transcript_path"].endswith(".jsonl")


@pytest.mark.parametrize("name", ["PreToolUse", "beforetool", "", "Stop"])
def test_unknown_event(name: str) -> None:
    assert parse_error(name, {"hook_event_name": name}) == f"unknown Gemini CLI hook event {name!r}"


def test_event_mismatch_with_hook_event_name() -> None:
    assert parse_error("BeforeTool", {"hook_event_name": "AfterTool", "tool_name": "x", "tool_input": {}}) == (
        "payload says hook_event_name='AfterTool' but the shim was registered for BeforeTool"
    )


def test_hook_event_name_may_be_absent() -> None:
    assert DIALECT.parse(request("BeforeAgent", {"prompt": "hi"})).event is Event.BEFORE_AGENT


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "hook payload is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        (b"not json", "hook payload is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        (b'{"a":1}\n{"b":2}', "hook payload is not valid JSON: Extra data: line 2 column 1 (char 8)"),
        (b'{"a":', "hook payload is not valid JSON: Expecting value: line 1 column 6 (char 5)"),
        (b"[" * 100_000, "hook payload is not valid JSON: nested too deeply"),
    ],
    ids=["empty", "text", "two-objects", "truncated", "deep"],
)
def test_payload_not_json(payload: bytes, message: str) -> None:
    assert parse_error("BeforeAgent", payload) == message


@pytest.mark.parametrize(
    ("number", "message"),
    [
        (b"NaN", "NaN is not a JSON number"),
        (b"-Infinity", "-Infinity is not a JSON number"),
        (b"1e999", "1e999 is out of range for a JSON number"),
        (b"-1.5E+400", "-1.5E+400 is out of range for a JSON number"),
        (b"1" + b"0" * 400 + b".5", "100000000000000000000... is out of range for a JSON number"),
    ],
)
def test_a_number_that_is_not_a_finite_json_number_is_a_bad_payload(number: bytes, message: str) -> None:
    """1e999 read as infinity reached the policies and the decision log (a strict collector refuses it)."""
    assert (
        parse_error("BeforeAgent", b'{"prompt":"x","n":' + number + b"}")
        == f"hook payload is not valid JSON: {message}"
    )


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        (b"[]", "an array"),
        (b'"x"', "a string"),
        (b"3", "a number"),
        (b"true", "a boolean"),
        (b"null", "null"),
    ],
)
def test_payload_not_an_object(payload: bytes, kind: str) -> None:
    assert parse_error("BeforeAgent", payload) == f"hook payload must be a JSON object, got {kind}"


@pytest.mark.parametrize(
    ("payload", "offset"),
    [
        (b'{"prompt":"\xff"}', 11),
        (b'{"prompt":"caf\xe9"}', 14),
        ('{"prompt":"x"}'.encode("utf-16"), 0),  # json.loads(bytes) would sniff and accept UTF-16
    ],
    ids=["0xff", "latin-1", "utf-16"],
)
def test_payload_not_utf8(payload: bytes, offset: int) -> None:
    assert parse_error("BeforeAgent", payload) == f"hook payload is not UTF-8 (bad byte at offset {offset})"


def test_utf8_payload_is_read() -> None:
    event = DIALECT.parse(request("BeforeAgent", '{"prompt":"café ✓"}'.encode()))
    assert event.payload["prompt"] == "café ✓"


@pytest.mark.parametrize("event", ["BeforeTool", "AfterTool"])
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"tool_input": {}}, "{event} payload has no tool_name string"),
        ({"tool_name": "", "tool_input": {}}, "{event} payload has no tool_name string"),
        ({"tool_name": 3, "tool_input": {}}, "{event} payload has no tool_name string"),
        ({"tool_name": "x"}, "{event} payload: tool_input must be a JSON object"),
        ({"tool_name": "x", "tool_input": ["a"]}, "{event} payload: tool_input must be a JSON object"),
    ],
)
def test_tool_events_need_a_tool(event: str, fields: dict[str, Any], message: str) -> None:
    assert parse_error(event, fields) == message.format(event=event)


@pytest.mark.parametrize(
    "event",
    [e for e in GEMINI_EVENTS.values() if e not in (Event.BEFORE_TOOL, Event.AFTER_TOOL)],
    ids=lambda e: e.value,
)
def test_other_events_have_no_tool(event: Event) -> None:
    parsed = DIALECT.parse(request(event.value, {"hook_event_name": event.value, "tool_name": "x", "tool_input": {}}))
    assert parsed.tool is None
    assert parsed.input_document()["tool"] is None


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("run_shell_command", ToolKind.SHELL),
        ("read_file", ToolKind.READ),
        ("read_many_files", ToolKind.READ),
        ("list_directory", ToolKind.READ),
        ("glob", ToolKind.READ),
        ("grep_search", ToolKind.READ),
        ("search_file_content", ToolKind.READ),
        ("write_file", ToolKind.WRITE),
        ("replace", ToolKind.EDIT),
        ("web_fetch", ToolKind.WEB),
        ("google_web_search", ToolKind.WEB),
        ("mcp_my-mcp-server_read_file", ToolKind.MCP),
        ("mcp_github_run_shell_command", ToolKind.MCP),
        ("mcp_", ToolKind.MCP),
        ("write_todos", ToolKind.OTHER),
        ("discovered_tool_deploy", ToolKind.OTHER),
        ("Bash", ToolKind.OTHER),
        ("mcp__server__tool", ToolKind.MCP),
        ("MCP_x", ToolKind.OTHER),
        ("xmcp_read_file", ToolKind.OTHER),
    ],
)
def test_tool_kind(name: str, kind: ToolKind) -> None:
    assert tool_kind(name) is kind


def test_mcp_tool_event_kind() -> None:
    payload = {
        "hook_event_name": "BeforeTool",
        "tool_name": "mcp_my-mcp-server_read_file",
        "tool_input": {"path": "/etc/passwd"},
        "mcp_context": {"server_name": "my-mcp-server", "tool_name": "read_file"},
    }
    event = DIALECT.parse(request("BeforeTool", payload))
    assert event.tool is not None and event.tool.kind is ToolKind.MCP


def test_project_dir_from_gemini_project_dir() -> None:
    event = DIALECT.parse(
        request(
            "BeforeAgent",
            {"cwd": "/home/alice/proj/sub", "prompt": "x"},
            {"GEMINI_PROJECT_DIR": "/home/alice/proj"},
        )
    )
    assert (event.project_dir, event.cwd) == ("/home/alice/proj", "/home/alice/proj/sub")


def test_project_dir_falls_back_to_payload_cwd() -> None:
    event = DIALECT.parse(request("BeforeAgent", {"cwd": "/home/alice/proj", "prompt": "x"}, {}))
    assert (event.project_dir, event.cwd) == ("/home/alice/proj", "/home/alice/proj")


def test_project_dir_falls_back_to_shim_cwd() -> None:
    event = DIALECT.parse(request("BeforeAgent", {"prompt": "x"}, {}, cwd="/shim/dir"))
    assert (event.project_dir, event.cwd) == ("/shim/dir", "/shim/dir")


def test_empty_gemini_project_dir_is_ignored() -> None:
    event = DIALECT.parse(request("BeforeAgent", {"cwd": "/p"}, {"GEMINI_PROJECT_DIR": ""}))
    assert event.project_dir == "/p"


def test_session_id_falls_back_to_env() -> None:
    event = DIALECT.parse(request("SessionEnd", {"reason": "exit"}, {"GEMINI_SESSION_ID": "abc"}))
    assert event.session_id == "abc"
    event = DIALECT.parse(request("SessionEnd", {"session_id": "xyz"}, {"GEMINI_SESSION_ID": "abc"}))
    assert event.session_id == "xyz"


def test_home_from_env() -> None:
    event = DIALECT.parse(request("SessionStart", {"source": "startup"}, {"HOME": "/srv/home"}))
    assert event.facts == {"home": "/srv/home"}
    assert event.input_document()["home"] == "/srv/home"


def test_env_is_kept() -> None:
    env = {"GEMINI_PROJECT_DIR": "/p", "HOME": "/h"}
    assert DIALECT.parse(request("PreCompress", {"trigger": "auto"}, env)).env == env


@pytest.mark.parametrize("event", list(GEMINI_EVENTS.values()), ids=lambda e: e.value)
def test_every_event_parses(event: Event) -> None:
    fields: dict[str, Any] = {"hook_event_name": event.value}
    if event in (Event.BEFORE_TOOL, Event.AFTER_TOOL):
        fields |= {"tool_name": "read_file", "tool_input": {"file_path": "a"}}
    assert DIALECT.parse(request(event.value, fields)).event is event
