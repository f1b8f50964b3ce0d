"""The attack corpus `hookd test` runs besides the case files: `corpus/*.jsonl` below a policy directory,
one case a line, and its figures per category (attacks stopped, benign calls allowed). Owned by the
policies engineer; the format is in docs/policies.md ("Testing against the corpus").

A line is an object: `category`, `attack` (true: must be stopped, by deny or ask; false: a benign
look-alike that must be allowed with no prompt), `source` (the peer suite and file, or the incident,
it was drawn from), then either `command` (a shell line), `tool` (`read`, `write`, `edit`) with
`path` (and `content`), or `client` (any agent), `tool_name` and `tool_input` (that agent's own tool, as
its PreToolUse, or the event it has for one), with optional `cwd` (the agent's working directory,
`${PROJECT}` unless given) and `world` (files and links made for the case, hookd.policytest). `gap`, when
present, says why the defaults do not (yet) meet the case: such a
case reports GAP instead of FAIL, and FAIL once it is met (so that the gap list stays honest).
`outside_aims`, when present, says why a peer's case is not one the defaults aim at (a delete inside the
project, a rule hookd does not have): it is still run and reported (OUTSIDE when the peer's expectation
is not met), counted in its own `<set>/outside-aims` row and never in a total.

A category `set/name` (the default bundle's `held-out/…`, cases drawn after the fixes) is a row of its
own set: each set gets its own total (`set/all`) beside the total of the plain categories (`all`).
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.errors import HookdError, one_line
from hookd.policytest.result import TestResult
from hookd.types import ToolKind, ToolSpec

RunCase = Callable[[str, dict[str, Any]], TestResult]


def _default_tool(kind: ToolKind) -> tuple[str, ToolSpec]:
    """The default agent's tool of this kind that names its path (and shows its new text, for writes and
    edits): the corpus is written in no agent's words, the default agent's module says them."""
    for name, spec in AGENTS[DEFAULT_AGENT].tools.items():
        whole = kind is ToolKind.SHELL or (spec.paths and (kind is ToolKind.READ or spec.content or spec.replace))
        if spec.kind is kind and whole:
            return name, spec
    raise ValueError(f"the default agent has no {kind.value} tool for corpus cases")


_KINDS = {"read": ToolKind.READ, "write": ToolKind.WRITE, "edit": ToolKind.EDIT}


def find_corpus_files(policy_dir: Path, patterns: Sequence[str] = ()) -> list[Path]:
    """Every corpus file of `policy_dir`, or those whose name (or name without `.jsonl`) matches one of
    `patterns` (globs); a pattern that matches none is an error, never a run that silently tests less."""
    files = sorted(p for p in policy_dir.rglob("*.jsonl") if p.parent.name == "corpus")
    if not patterns:
        return files
    for pattern in patterns:
        if not any(_named(path, pattern) for path in files):
            raise HookdError(f"--corpus {pattern!r}: no corpus file of {policy_dir} matches it")
    return [path for path in files if any(_named(path, pattern) for pattern in patterns)]


def _named(path: Path, pattern: str) -> bool:
    return fnmatch.fnmatchcase(path.name, pattern) or fnmatch.fnmatchcase(path.stem, pattern)


def run_corpus(files: Sequence[Path], run_case: RunCase) -> list[TestResult]:
    results = []
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            results.append(TestResult(str(path), "ERROR", one_line(str(exc))))
            continue
        for number, line in enumerate(lines, start=1):
            if line.strip():
                results.append(run_line(f"{path.name}:{number}", line, run_case))
    return results


def run_line(name: str, line: str, run_case: RunCase) -> TestResult:
    """One corpus line (a JSON case) run and judged as `hookd test` does it."""
    try:
        case = json.loads(line)
        payload = _payload(case)
        attack, category, source = case["attack"], case["category"], case["source"]
        if not (isinstance(attack, bool) and isinstance(category, str) and isinstance(source, str) and source):
            raise ValueError("needs a boolean 'attack' and non-empty 'category' and 'source'")
    except (ValueError, KeyError, TypeError) as exc:
        return TestResult(name, "ERROR", f"bad corpus line: {one_line(str(exc))}")
    what = case.get("command") or case.get("path") or f"{case.get('client')} {case.get('tool_name')}"
    label = f"{name} [{category}] {what}"[:200]
    expect = {"outcome": ["deny", "ask"] if attack else "allow"}
    run = {"payload": payload, "expect": expect, "client": case.get("client", DEFAULT_AGENT)}
    result = run_case(label, run | ({"world": case["world"]} if "world" in case else {}))
    result = replace(result, category=category, attack=attack)
    outside = case.get("outside_aims")
    if outside:
        prefix = category.rpartition("/")[0]
        status = "PASS" if result.status == "PASS" else "OUTSIDE"
        detail = f"outside the defaults' aims ({outside}); {result.detail}".rstrip("; ")
        row = f"{prefix}/{OUTSIDE_ROW}" if prefix else OUTSIDE_ROW
        return replace(result, category=row, status=status, detail=detail)
    gap = case.get("gap")
    if not gap:
        return result
    if result.status == "PASS":
        return replace(result, status="FAIL", detail=f"listed as a gap ({gap}) but now met: remove the gap")
    return replace(result, status="GAP", detail=f"{gap}; {result.detail}")


def _payload(case: dict[str, Any]) -> dict[str, Any]:
    cwd = case.get("cwd", "${PROJECT}")
    if not isinstance(cwd, str):
        raise ValueError("'cwd' must be a string")
    if "tool_name" in case:  # any agent's own tool: a Claude-shaped PreToolUse (Gemini's BeforeTool)
        if case.get("client") not in AGENTS or not isinstance(case["tool_name"], str):
            raise ValueError("'tool_name' needs a string and a 'client' hookd serves")
        if not isinstance(case.get("tool_input"), dict):
            raise ValueError("'tool_input' must be an object")
        names = [e.name for e in AGENTS[case["client"]].events] if case["client"] in AGENTS else []
        before = [e.name for e in AGENTS[case["client"]].events if e.event.value == "BeforeTool"] if names else []
        event = "PreToolUse" if "PreToolUse" in names or not before else before[0]  # OpenCode's plugin event
        return {
            "session_id": "corpus",
            "transcript_path": "",
            "cwd": cwd,
            "hook_event_name": event,
            "timestamp": "2026-12-02T00:00:00Z",
            "tool_name": case["tool_name"],
            "tool_input": case["tool_input"],
        }
    if "command" in case:
        tool, spec = _default_tool(ToolKind.SHELL)
        tool_input: dict[str, Any] = {"command": str(case["command"])}
    else:
        tool, spec = _default_tool(_KINDS[case["tool"]])
        tool_input = {spec.paths[0][0]: str(case["path"])}
        if case["tool"] == "write":
            tool_input[spec.content] = str(case.get("content", "x"))
        elif case["tool"] == "edit" and spec.replace:
            old, new = spec.replace
            tool_input |= {old: "a", new: str(case.get("content", "b"))}
    event = next(e.name for e in AGENTS[DEFAULT_AGENT].events if e.event.value == "BeforeTool")
    return {
        "session_id": "corpus",
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": event,
        "timestamp": "2026-12-02T00:00:00Z",
        "tool_name": tool,
        "tool_input": tool_input,
    }


OUTSIDE_ROW = "outside-aims"


def figures(results: Sequence[TestResult]) -> list[str]:
    """One line per category and a total per set (`all`, `held-out/all`): attacks stopped and benign
    calls allowed, with percentages. Cases outside the aims have their own row, in no total."""
    table: dict[str, list[int]] = {}
    for result in results:
        if result.attack is None:
            continue
        counts = table.setdefault(result.category, [0, 0, 0, 0])
        met = result.status == "PASS" or (result.status == "FAIL" and "now met" in result.detail)
        offset = 0 if result.attack else 2
        counts[offset] += met
        counts[offset + 1] += 1
    if not table:
        return []
    lines = [f"{'category':24} {'attacks stopped':>22} {'benign allowed':>22}"]
    sets = sorted({category.rpartition("/")[0] for category in table})
    for prefix in sets:
        rows = sorted((c, counts) for c, counts in table.items() if c.rpartition("/")[0] == prefix)
        counted = [counts for c, counts in rows if c.rpartition("/")[2] != OUTSIDE_ROW]
        total = [sum(column) for column in zip(*counted, strict=True)] if counted else [0, 0, 0, 0]
        for category, counts in [*rows, (f"{prefix}/all" if prefix else "all", total)]:
            lines.append(f"{category:24} {_ratio(counts[0], counts[1]):>22} {_ratio(counts[2], counts[3]):>22}")
    return lines


def _ratio(met: int, total: int) -> str:
    return f"{met}/{total} ({100 * met / total:.1f}%)" if total else "-"
