"""hookd.policytest.corpus: the corpus lines `hookd test` runs, gap bookkeeping and the figures per category."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from hookd import policytest
from hookd.errors import HookdError
from hookd.policytest.corpus import figures, find_corpus_files, run_corpus


def write(tmp_path: Path, *cases: dict[str, Any]) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    path = folder / "c.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return path


def outcome_runner(outcomes: dict[str, str]) -> Any:
    """A stand-in for the pipeline: the outcome of a command is looked up; the expectation is checked."""

    def run(name: str, case: dict[str, Any]) -> policytest.TestResult:
        got = outcomes[case["payload"]["tool_input"].get("command", "")]
        want = case["expect"]["outcome"]
        ok = got in want if isinstance(want, list) else got == want
        return policytest.TestResult(name, "PASS" if ok else "FAIL", "" if ok else f"outcome {got}")

    return run


def test_attacks_need_a_stop_and_benign_calls_an_allow(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"category": "x", "attack": True, "source": "s", "command": "asked"},
        {"category": "x", "attack": True, "source": "s", "command": "allowed"},
        {"category": "x", "attack": False, "source": "s", "command": "asked"},
        {"category": "y", "attack": False, "source": "s", "command": "allowed"},
    )
    results = run_corpus([path], outcome_runner({"asked": "ask", "allowed": "allow"}))
    assert [r.status for r in results] == ["PASS", "FAIL", "FAIL", "PASS"]
    lines = figures(results)
    assert lines[1].split() == ["x", "1/2", "(50.0%)", "0/1", "(0.0%)"]
    assert lines[-1].split() == ["all", "1/2", "(50.0%)", "1/2", "(50.0%)"]


def test_a_gap_reports_gap_until_it_is_met(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"category": "x", "attack": True, "source": "s", "command": "allowed", "gap": "why"},
        {"category": "x", "attack": True, "source": "s", "command": "denied", "gap": "why"},
    )
    results = run_corpus([path], outcome_runner({"allowed": "allow", "denied": "deny"}))
    assert [r.status for r in results] == ["GAP", "FAIL"]
    assert "remove the gap" in results[1].detail
    assert figures(results)[1].split()[1] == "1/2"  # a met gap counts as stopped


def test_cases_outside_the_aims_have_their_own_row_in_no_total(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"category": "held-out/x", "attack": True, "source": "s", "command": "denied"},
        {"category": "held-out/x", "attack": True, "source": "s", "command": "allowed", "outside_aims": "why"},
        {"category": "x", "attack": False, "source": "s", "command": "allowed"},
    )
    results = run_corpus([path], outcome_runner({"allowed": "allow", "denied": "deny"}))
    assert [r.status for r in results] == ["PASS", "OUTSIDE", "PASS"]
    assert "why" in results[1].detail
    rows = {line.split()[0]: line.split()[1:] for line in figures(results)[1:]}
    assert rows["held-out/x"][0] == rows["held-out/all"][0] == "1/1"
    assert rows["held-out/outside-aims"][0] == "0/1"
    assert rows["all"] == ["-", "1/1", "(100.0%)"]


def test_a_bad_line_is_an_error_with_its_place(tmp_path: Path) -> None:
    path = write(tmp_path, {"category": "x", "attack": "yes", "source": "s", "command": "c"})
    (result,) = run_corpus([path], outcome_runner({}))
    assert (result.name, result.status) == ("c.jsonl:1", "ERROR")


def test_file_tool_cases_become_file_tool_payloads(tmp_path: Path) -> None:
    path = write(tmp_path, {"category": "x", "attack": True, "source": "s", "tool": "write", "path": "/p/.env"})
    seen: list[dict[str, Any]] = []

    def run(name: str, case: dict[str, Any]) -> policytest.TestResult:
        seen.append(case["payload"])
        return policytest.TestResult(name, "PASS")

    run_corpus([path], run)
    assert (seen[0]["tool_name"], seen[0]["tool_input"]["file_path"]) == ("write_file", "/p/.env")
    assert find_corpus_files(tmp_path) == [path]


def test_corpus_globs_pick_files_by_name_and_one_that_matches_none_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in ("blind-shell-1", "blind-shell-2", "red-team"):
        (folder / f"{name}.jsonl").write_text("")
    names = [p.stem for p in find_corpus_files(tmp_path, ["blind-shell-*", "red-team.jsonl"])]
    assert names == ["blind-shell-1", "blind-shell-2", "red-team"]
    assert [p.stem for p in find_corpus_files(tmp_path, ["red-team"])] == ["red-team"]
    with pytest.raises(HookdError, match=r"--corpus 'blind-tools-\*': no corpus file of .* matches it"):
        find_corpus_files(tmp_path, ["red-team", "blind-tools-*"])


def test_the_default_bundle_corpus_holds_sources_for_every_case() -> None:
    root = Path(__file__).resolve().parents[3] / "policies"
    files = find_corpus_files(root)
    assert files
    for path in files:
        for line in path.read_text().splitlines():
            case = json.loads(line)
            head = case["category"].partition("/")[0]  # held-out.jsonl: held-out/…; effects-sources.jsonl: effects/…
            assert case["source"] and (path.stem == head or path.stem.startswith(f"{head}-"))


def test_a_case_world_is_made_for_its_case_only_and_cwd_is_the_agents(tmp_path: Path) -> None:
    """`world` files exist while their case runs (a glob finds them), and are gone after; `cwd` is sent."""
    bundle = tmp_path / "bundle"
    shutil.copytree(Path(__file__).resolve().parents[3] / "policies" / "secret_reads", bundle / "secret_reads")
    glob = {"category": "x", "source": "s", "client": "gemini", "tool_name": "read_many_files",
            "tool_input": {"include": ["config/*"]}, "cwd": "${PROJECT}/src"}  # fmt: skip
    write(
        bundle,
        {**glob, "attack": True, "world": {"files": {"${PROJECT}/config/prod.env": "API_TOKEN=hk-test-0123456"}}},
        {**glob, "attack": False},  # the same glob, nothing there: nothing read
        {**glob, "attack": True, "world": {"files": {"/etc/hookd-never": "x"}}},
    )
    made, empty, outside = [r for r in policytest.run_case_files(bundle) if r.name.startswith("c.jsonl")]
    assert (made.status, empty.status) == ("PASS", "PASS"), (made.detail, empty.detail)
    assert outside.status == "ERROR" and "not below" in outside.detail


def test_a_case_cwd_is_the_payloads(tmp_path: Path) -> None:
    path = write(tmp_path, {"category": "x", "attack": True, "source": "s", "client": "claude", "tool_name": "Read",
                            "tool_input": {"file_path": "a"}, "cwd": "${PROJECT}/src"})  # fmt: skip
    seen: list[dict[str, Any]] = []

    def run(name: str, case: dict[str, Any]) -> policytest.TestResult:
        seen.append(case["payload"])
        return policytest.TestResult(name, "PASS")

    run_corpus([path], run)
    assert seen[0]["cwd"] == "${PROJECT}/src"
