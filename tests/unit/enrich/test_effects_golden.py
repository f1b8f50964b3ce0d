"""The enrich step's output held still: `input.shell` and `input.effects` for every payload of the policies'
case files and corpus (policies/*/cases/*.json, policies/corpus/*.jsonl) and the bench's payloads, against
digests stored from a known-good tree (effects_golden.json). A change that is meant to keep the output (a
speed-up) must keep every digest; one that changes the output on purpose regenerates the file:

  .cache/venv/bin/python tests/unit/enrich/test_effects_golden.py --write

Each payload is keyed by its own digest, so new cases are simply not covered until the file is regenerated;
the test fails when most of the stored payloads are gone (the file would then hold nothing). What a glob
matches on the machine outside the test's own dirs is left out (it differs from box to box)."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell.analysis import enrich_shell
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.policytest import _substitute
from hookd.policytest.corpus import _payload
from hookd.types import Caller, Deadline, HookRequest

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).with_name("effects_golden.json")
BENCH_COMMANDS = ("git status && ls -la src", "rm -rf ~/")  # bench/run.py PAYLOADS' shell calls
BENCH_FILES = (("write_file", "src/app.py"), ("write_file", ".env"), ("read_file", "README.md"))


def payloads(whole: bool = True) -> Iterator[tuple[str, dict[str, Any]]]:
    """(client, payload with `${PROJECT}`/`${HOME}` unsubstituted) for every case, corpus line and bench call;
    unless `whole`, of the corpus only the lines in the share (tests/corpus_share.py)."""

    for path in sorted(ROOT.glob("policies/*/cases/*.json")):
        for case in json.loads(path.read_text(encoding="utf-8")):
            if isinstance(case, dict) and isinstance(case.get("payload"), dict):
                yield str(case.get("client", DEFAULT_AGENT)), case["payload"]
    for path in sorted(ROOT.glob("policies/corpus/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and (whole or _in_share(line)):
                case = json.loads(line)
                yield str(case.get("client", DEFAULT_AGENT)), _payload(case)
    bench = [{"command": c} for c in BENCH_COMMANDS]
    for case in [*bench, *({"tool": t.split("_")[0], "path": p} for t, p in BENCH_FILES)]:
        yield DEFAULT_AGENT, _payload(case)


def _in_share(line: str) -> bool:
    from corpus_share import in_share  # on pytest's path; `--write`, run as a script, takes every payload

    return in_share(line)


def enriched(client: str, payload: dict[str, Any], project: Path, home: Path) -> Any:
    """`shell` and `effects` as the enrich step makes them, the throw-away dirs written back as placeholders."""
    body = _substitute(payload, project, home)
    request = HookRequest(
        client=client,
        event=str(body.get("hook_event_name", "")),
        payload=json.dumps(body).encode(),
        env={**{spec.project_dir_env: str(project) for spec in AGENTS.values()}, "HOME": str(home)},
        cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
        deadline=Deadline.after(5),
    )
    try:
        event = AGENTS[client].dialect.parse(request)
    except Exception as exc:  # a case that expects a dialect error: its message is the output
        return {"error": f"{type(exc).__name__}: {exc}"}
    for step in (enrich_shell, enrich_paths, enrich_tool_effects):
        event = step(event)
    shell, effects = event.facts.get("shell"), event.facts.get("effects")
    outside = (str(project.parent) + "/",)
    if isinstance(shell, dict):
        for command in shell.get("commands") or ():
            command["args"] = _own(command.get("args"), outside)
    matched = {e["path"] for e in event.facts.get("paths") or () if e.get("glob") and e not in _own([e], outside)}
    if isinstance(effects, list):
        effects = [e for e in _own(effects, outside) if e.get("path") not in matched or not e.get("known", True)]
        for effect in effects:
            effect.pop("running", None)  # what runs under a PID now: this box's processes
    text = json.dumps({"shell": shell, "effects": effects}, sort_keys=True)
    text = text.replace(str(project), "${PROJECT}").replace(str(home), "${HOME}")
    text = text.replace(str(project.parent), "${TMP}")  # `..` of the project
    return text.replace(f"/proc/{os.getpid()}/", "/proc/${PID}/")  # `/proc/self` resolved in this process


def _own(entries: Any, inside: tuple[str, ...]) -> Any:
    """`entries` without the paths a glob matched on this machine outside the test's dirs (`rm -rf /*`, `find
    /var/log …` list the box's own root and logs: another machine, or the same one later, has others). A tool's
    effects carry no `glob`: those on a path its glob matched outside are dropped by path in `enriched`."""
    if not isinstance(entries, list):
        return entries
    return [e for e in entries if not (isinstance(e, dict) and e.get("glob") and not str(e["path"]).startswith(inside))]


def key(client: str, payload: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps([client, payload], sort_keys=True).encode()).hexdigest()[:24]


def outputs(whole: bool = True) -> dict[str, tuple[str, str]]:
    """key → (digest of the output, the output) for every payload (`payloads(whole)`)."""
    found: dict[str, tuple[str, str]] = {}
    # hex only: a `_` in the home's name would split `IFS=_; x="cat_$HOME/…"; $x` differently from run to run; a
    # letter first: a part of the home's path starting with a digit would make a typed line not parse as Python
    tmp = Path(tempfile.gettempdir(), "hookd-golden-h" + secrets.token_hex(8))
    project, home = tmp / "project", tmp / "home"
    try:
        tmp.mkdir(mode=0o700)
        project.mkdir()
        home.mkdir()
        for client, payload in payloads(whole):
            text = str(enriched(client, payload, project, home))
            found[key(client, payload)] = (hashlib.sha256(text.encode()).hexdigest()[:32], text)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return found


@pytest.mark.timeout(900)  # grows with the corpus; the limit only stops a stuck run
def test_shell_and_effects_are_unchanged() -> None:
    stored: dict[str, str] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    from corpus_share import whole_corpus

    now = outputs(whole=whole_corpus())  # --write stores every payload's; the test compares the share's
    common = [k for k in now if k in stored]
    assert len(common) >= 0.8 * len(now), "most payloads are not stored: regenerate effects_golden.json"
    changed = [now[k][1] for k in common if now[k][0] != stored[k]]
    assert not changed, f"{len(changed)} outputs changed; the first: {changed[0][:3000]}"


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    digests = {k: digest for k, (digest, _) in sorted(outputs().items())}
    GOLDEN.write_text(json.dumps(digests, indent=0) + "\n", encoding="utf-8")
    print(f"{len(digests)} payloads written to {GOLDEN}")
