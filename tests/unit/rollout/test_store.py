"""The replay store: what a line holds (redacted like the decision log, nothing else cut), owner-only files,
the size and age bounds, and that a stored document replays into the same input."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from hookd.config import LogConfig, ReplayConfig
from hookd.errors import DaemonError
from hookd.policy.combine import combine
from hookd.rollout.replay import event_of
from hookd.rollout.store import ReplayStore, entry, prepare_dir, read_entries, redactor, segments
from hookd.types import (
    Caller,
    Decision,
    Event,
    Handled,
    NormalisedEvent,
    Outcome,
    Reply,
    ToolCall,
    ToolKind,
    Verdict,
    VerdictKind,
)

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"


def handled(command: str, n: int = 0) -> Handled:
    tool = ToolCall("run_shell_command", ToolKind.SHELL, {"command": command})
    event = NormalisedEvent(
        "gemini", Event.BEFORE_TOOL, {"tool_input": {"command": command}, "prompt": "x" * 600}, tool,
        "s", "/p", "/p", Caller(1000, 1000, 42), facts={"shell": {"commands": [{"name": "echo"}]}},
    )  # fmt: skip
    verdicts = (Verdict(VerdictKind.DENY, "hookd.d", "r", "no"),)
    decision = Decision(Outcome.DENY, ("no",), verdicts=verdicts, decision_id=f"id{n}")
    return Handled(event, decision, Reply(), 1.0)


def test_a_line_keeps_the_input_whole_but_its_secrets_and_says_so() -> None:
    line = entry(handled(f"aws s3 ls --key {KEY}"), 1.5, redactor(LogConfig(), ReplayConfig()))
    assert line["input"]["tool"]["input"]["command"] == "aws s3 ls --key [REDACTED:aws_access_key]"
    assert line["input"]["raw"]["prompt"] == "x" * 600  # the decision log cuts it to 256; replay keeps it
    assert (line["outcome"], line["rules"], line["redacted"]) == ("deny", ["hookd.d:r"], True)
    assert entry(handled("ls"), 1.5, redactor(LogConfig(), ReplayConfig()))["redacted"] is False


def test_a_stored_document_replays_into_the_input_the_policies_saw() -> None:
    document = handled("ls -la").event.input_document()
    stored = json.loads(json.dumps(document))
    assert event_of(stored).input_document() == stored
    assert combine([]).outcome is Outcome.ALLOW


def write(store: ReplayStore, items: list[Handled]) -> None:
    async def main() -> None:
        store.start()
        for item in items:
            store.offer(item)
        await store.close()

    asyncio.run(main())


def test_files_are_owner_only_and_whole_segments_go_oldest_first_past_max_bytes(tmp_path: Path) -> None:
    config = ReplayConfig(enabled=True, path=tmp_path / "replay", segment_bytes=2000, max_bytes=5000)
    store = ReplayStore(config, LogConfig())
    write(store, [handled("ls", n) for n in range(40)])
    files = segments(config.path)
    assert oct(config.path.stat().st_mode & 0o777) == "0o700"
    assert {oct(f.stat().st_mode & 0o777) for f in files} == {"0o600"}
    assert sum(f.stat().st_size for f in files) <= 5000 + 2000  # the bound, plus the segment being written
    assert store.deleted > 0 and store.written == 40
    ids = [line["id"] for _, line in read_entries(config.path)]
    assert ids == [f"id{n}" for n in range(40 - len(ids), 40)]  # the newest kept, in order


def test_segments_older_than_max_age_are_deleted_at_start(tmp_path: Path) -> None:
    config = ReplayConfig(enabled=True, path=tmp_path / "replay", max_age_hours=1)
    prepare_dir(config.path)
    old = config.path / "replay-1000.jsonl"
    old.write_text("{}\n")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    write(ReplayStore(config, LogConfig()), [handled("ls")])
    assert not old.exists() and len(segments(config.path)) == 1


def test_a_store_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    if os.getuid() != 0:
        pytest.skip("needs root to give the directory away")
    os.chown(theirs, 65534, 65534)
    with pytest.raises(DaemonError, match="belongs to uid 65534"):
        prepare_dir(theirs)
