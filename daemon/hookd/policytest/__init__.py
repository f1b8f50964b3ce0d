"""`hookd test`: a policy directory's Rego `test_` rules (as `opa test` runs them) and its case files, which
run through the same engine the daemon would serve: Rego and Python policies alike.

Rego tests: every rule named `test_*` in any package, evaluated on a fresh clone of the loaded
engine; it passes when its value is exactly `true`, fails when it is undefined or anything else, and
errors when evaluation raises. `todo_test_*` rules are skipped. With an OPA config (`hookd test --engine
opa`) the directory, tests included, is pushed to that OPA server and each test rule is one query there.

Case files: `cases/*.json` anywhere under the directory, each a list of cases that run the whole
hook path (dialect parse, enrichment, engine, combine, render) with `${PROJECT}` and `${HOME}` in the
payload replaced by throw-away directories (`${USER_HOME}`: the caller's home in the password database).
A case's `world` (`{"files": {path: text}, "links": {path: target}}`, paths under those directories) is
made before the case runs and removed after it: a symlinked directory or the files a glob finds.
"""

from __future__ import annotations

import asyncio
import json
import os
import pwd
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.assembly import build_pipeline, engine_for_dir, enrichers, in_process
from hookd.config import Config, OpaConfig
from hookd.dialects.common import rewritten_tool_input
from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.engines.rego.policyset import RegoModule, discover, load_data, load_modules, load_policy_set, new_engine
from hookd.errors import HookdError, one_line
from hookd.policytest.result import TestResult
from hookd.types import Caller, Deadline, Engine, Enricher, HookRequest, Outcome


def run_rego_tests(policy_dir: Path, opa: OpaConfig | None = None) -> list[TestResult]:
    policy_dir = policy_dir.resolve()
    engine = new_engine()
    rego_files, data_files = discover(policy_dir, include_tests=True)
    modules = load_modules(engine, rego_files, policy_dir)
    load_data(engine, data_files, policy_dir)
    tests: list[str] = []
    results = []
    for module in modules:
        for rule in sorted(module.rules):
            name = f"data.{module.package}.{rule}"
            if rule.startswith("todo_test_"):
                results.append(TestResult(name, "SKIP"))
            elif rule.startswith("test_"):
                tests.append(name)
    if opa is not None:
        return results + _run_on_opa(policy_dir, modules, tests, opa)
    return results + _run_all(engine, tests)


def _run_on_opa(
    policy_dir: Path, modules: Sequence[RegoModule], tests: Sequence[str], opa: OpaConfig
) -> list[TestResult]:
    from hookd.engines.rego.opa import HookdOpaClient, Upload, push, run_blocking

    policies = load_policy_set(policy_dir)
    served = {m.path for m in policies.modules}
    upload = Upload.of(policies, extra=[(str(m.path), m.source) for m in modules if m.path not in served])

    async def run(client: HookdOpaClient) -> list[TestResult]:
        await push(client, upload)
        return [await _run_one_on_opa(client, name) for name in tests]

    return run_blocking(opa, run)


async def _run_one_on_opa(client: Any, name: str) -> TestResult:
    package, rule = name.removeprefix("data.").rsplit(".", 1)
    try:
        answer = await client.query_rule({}, package, rule)
    except Exception as exc:  # an HTTP error carries OPA's evaluation error (a conflict, a type error)
        return TestResult(name, "ERROR", one_line(str(exc)))
    if answer.get("result") is True:
        return TestResult(name, "PASS")
    return TestResult(
        name, "FAIL", f"value {json.dumps(answer['result'])[:200]}" if "result" in answer else "undefined"
    )


def _run_all(engine: Any, tests: Sequence[str]) -> list[TestResult]:
    """Every test on one clone: a fresh clone prepares the whole policy set again before its first rule
    (~30 ms a test, most of a small run's time). A test that errs gets the next one a fresh clone, so no
    evaluation stopped midway can leave anything behind."""
    results: list[TestResult] = []
    shared: Any = None
    for name in tests:
        if shared is None:
            shared = engine.clone()
            shared.set_input({})
        results.append(result := _run_one(shared, name))
        if result.status == "ERROR":
            shared = None
    return results


def _run_one(engine: Any, name: str) -> TestResult:
    try:
        value = engine.eval_rule(name)
    except Exception as exc:
        return TestResult(name, "ERROR", one_line(str(exc)))
    if value is True:
        return TestResult(name, "PASS")
    return TestResult(name, "FAIL", "undefined" if value is None else f"value {json.dumps(value)[:200]}")


def find_case_files(policy_dir: Path) -> list[Path]:
    return sorted(p for p in policy_dir.rglob("*.json") if p.parent.name == "cases")


def run_case_files(
    policy_dir: Path, config: Config | None = None, only: Sequence[str] = (), engine_config: Config | None = None
) -> list[TestResult]:
    """Through the engine `config` selects (daemon.engine), all cases on one event loop: the case files,
    then the corpus (`corpus/*.jsonl`, hookd.policytest.corpus; only the files `only` names, if any).
    `engine_config`: where the engine differs from what the policies see (`hookd test --engine opa`'s private
    server is not the OPA of the daemon `config` describes)."""
    from hookd.policytest.corpus import find_corpus_files, run_corpus

    files = find_case_files(policy_dir)
    corpus = find_corpus_files(policy_dir, only)
    if not files and not corpus:
        return []
    with case_runner(policy_dir, config, engine_config) as case:
        return _run_case_files(files, case) + run_corpus(corpus, case.run)


@contextmanager
def case_runner(policy_dir: Path, config: Config | None = None, engine_config: Config | None = None) -> Iterator[Case]:
    """What every case of one run shares, for as long as the block runs (the corpus, and tests that run
    cases of their own through the same path: tests/unit/policy/test_spelling_invariance.py)."""
    config = in_process(config or Config())
    engine = engine_for_dir(in_process(engine_config or config), policy_dir.resolve())  # Rego, Python policies
    steps = enrichers(config)  # one set for all cases: a stream's chunks are cases in a row
    with asyncio.Runner() as runner:
        try:
            with tempfile.TemporaryDirectory(prefix="hookd-cases-") as tmp:
                project, home = Path(tmp, "project"), Path(tmp, "home")
                project.mkdir()
                home.mkdir()
                yield Case(engine, config, steps, project, home, runner)
        finally:
            runner.run(engine.aclose())


def _run_case_files(files: Sequence[Path], case_runner: Case) -> list[TestResult]:
    results = []
    for path in files:
        try:
            cases = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            results.append(TestResult(str(path), "ERROR", f"not valid JSON: {one_line(str(exc))}"))
            continue
        if not isinstance(cases, list):
            results.append(TestResult(str(path), "ERROR", "a case file must hold a JSON list of cases"))
            continue
        for index, case in enumerate(cases):
            name = f"{path.name}#{index} {case.get('name', '') if isinstance(case, dict) else ''}".strip()
            results.append(case_runner.run(name, case))
    return results


def _substitute(value: Any, project: Path, home: Path) -> Any:
    if isinstance(value, str):
        value = value.replace("${PROJECT}", str(project)).replace("${HOME}", str(home))
        return value.replace("${USER_HOME}", _user_home()) if "${USER_HOME}" in value else value
    if isinstance(value, list):
        return [_substitute(v, project, home) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, project, home) for k, v in value.items()}
    return value


def _user_home() -> str:
    """The caller's home as the password database has it (`${USER_HOME}`: a case's `${HOME}` is a throw-away
    directory, as an agent run with a `HOME` of its own has)."""
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return "/nonexistent"


@dataclass(frozen=True, slots=True)
class Case:
    """What every case of one run shares: the engine, the enrichers (their state), the throw-away dirs."""

    engine: Engine
    config: Config
    steps: Sequence[Enricher]
    project: Path
    home: Path
    runner: asyncio.Runner

    def run(self, name: str, case: Any) -> TestResult:
        return _run_case(name, case, self)


def _run_case(name: str, case: Any, shared: Case) -> TestResult:
    engine, config, project, home, runner = shared.engine, shared.config, shared.project, shared.home, shared.runner
    if (
        not isinstance(case, dict)
        or not isinstance(case.get("payload"), dict)
        or not isinstance(case.get("expect"), dict)
    ):
        return TestResult(name, "ERROR", "a case needs a 'payload' object and an 'expect' object")
    payload = _substitute(case["payload"], project, home)
    expect = case["expect"]
    interactive = bool(case.get("interactive", False))
    pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: interactive, steps=shared.steps)
    request = HookRequest(
        client=str(case.get("client", DEFAULT_AGENT)),
        event=str(case.get("event", payload.get("hook_event_name", ""))),
        payload=json.dumps(payload).encode(),
        env={**{spec.project_dir_env: str(project) for spec in AGENTS.values()}, "HOME": str(home)},
        cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
        deadline=Deadline.after(5),
    )
    try:
        made = _make_world(case.get("world", {}), (project, home), lambda v: _substitute(v, project, home))
    except (OSError, ValueError, TypeError) as exc:
        return TestResult(name, "ERROR", f"bad world: {one_line(str(exc))}")
    try:
        handled = runner.run(pipeline.handle(request))
    except HookdError as exc:
        if expect.get("error"):
            return TestResult(name, "PASS")
        return TestResult(name, "ERROR", str(exc))
    finally:
        _unmake_world(made)
    return _check(name, expect, handled, project, home)


def _make_world(world: Any, roots: Sequence[Path], substitute: Callable[[str], str]) -> list[Path]:
    """Make a case's files and links (below `roots` only); return what was made, parents before children."""
    if not isinstance(world, dict) or set(world) - {"files", "links"}:
        raise ValueError("'world' is an object with 'files' and 'links' (each path: text or target)")
    made: list[Path] = []
    try:
        for key in ("files", "links"):
            for name, value in dict(world.get(key, {})).items():
                path = Path(substitute(name))
                if not path.is_absolute() or not any(path.is_relative_to(r) for r in roots) or ".." in path.parts:
                    raise ValueError(f"{name} is not below the case's throw-away directories")
                missing = [d for d in reversed(path.parents) if not d.exists()]
                for directory in missing:
                    directory.mkdir()
                made += missing
                if key == "files":
                    path.write_text(substitute(str(value)), encoding="utf-8")
                else:
                    path.symlink_to(substitute(str(value)))
                made.append(path)
    except BaseException:
        _unmake_world(made)
        raise
    return made


def _unmake_world(made: Sequence[Path]) -> None:
    for path in reversed(made):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            path.rmdir()


def _check(name: str, expect: Mapping[str, Any], handled: Any, project: Path, home: Path) -> TestResult:
    decision = handled.decision
    problems = []
    want = expect.get("outcome")  # one outcome, or a list of acceptable ones
    if want is not None and decision.outcome.name.lower() not in (want if isinstance(want, list) else [want]):
        problems.append(f"outcome {decision.outcome.name.lower()}, expected {want}")
    have_rules = {f"{v.policy_id}:{v.rule_id}" for v in decision.verdicts}
    missing = [r for r in expect.get("rules", []) if r not in have_rules]
    if missing:
        problems.append(f"missing verdicts {missing} (got {sorted(have_rules) or 'none'})")
    if "tool_input" in expect:
        got = rewritten_tool_input(handled.event, decision, [])  # what every dialect sends, whole
        if got != _substitute(expect["tool_input"], project, home):
            problems.append(f"tool_input {json.dumps(got)}, expected {json.dumps(expect['tool_input'])}")
    if "stdout" in expect and handled.reply.stdout.decode() != _substitute(expect["stdout"], project, home):
        problems.append(f"stdout {handled.reply.stdout.decode()!r}, expected {expect['stdout']!r}")
    if problems:
        return TestResult(name, "FAIL", "; ".join(problems))
    return TestResult(name, "PASS")


def summarise(results: Sequence[TestResult]) -> tuple[int, int]:
    failed = sum(r.status in ("FAIL", "ERROR") for r in results)
    passed = sum(r.status == "PASS" for r in results)
    return passed, failed


__all__ = ["Outcome", "TestResult", "case_runner", "run_case_files", "run_rego_tests", "summarise"]
