"""What a GitHub Actions workflow a file tool writes hands its secrets to (part of the effect model's tool effects,
called by enrich/tool_effects.py and enrich/carried_secrets.py). Two shapes, each judged by what the workflow
does, not by a step's spelling:

* the WHOLE secrets context given to a step (`${{ toJSON(secrets) }}`, `${{ secrets }}`, in any case and
  spacing): every repository secret at once, in one value a step can print or send (the tj-actions payload
  printed them to the log, base64-encoded twice; Sonar's S7634). A step needs the secrets it names;
* a `pull_request_target` (or `workflow_run`) workflow that checks out the pull request's own code (`ref` or
  `repository` naming the head: `github.event.pull_request.head.*`, `github.head_ref`, `refs/pull/…`): the fork's
  code then runs with the base repository's token and secrets (a "pwn request": GitHub's 2026 changelog lists
  these inputs as the ones actions/checkout v7 refuses). Labeling or commenting without a checkout is its use.

Bounded: texts past MAX_WORKFLOW_TEXT are not parsed, and only files below a `.github/workflows/` directory."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import yaml

from hookd.types import JSON

MAX_WORKFLOW_TEXT = 256 * 1024
_EXPRESSION = re.compile(r"\$\{\{([^}]{0,256})\}\}")
_PRIVILEGED = frozenset({"pull_request_target", "workflow_run"})  # run with the base repository's secrets
_PR_HEAD = re.compile(
    r"github\.event\.pull_request\.head\.|github\.head_ref|refs/pull/|github\.event\.workflow_run\.head_"
)
_WHEN = (
    "a pull_request_target workflow checks out the pull request's own code and runs it with the repository's secrets"
)


def every_secret(text: str) -> bool:
    """`text` holds a workflow expression whose value is the whole secrets context."""
    return any(
        re.search(r"\btojson\s*\(\s*secrets\s*\)", m.group(1), re.IGNORECASE) or m.group(1).strip() == "secrets"
        for m in _EXPRESSION.finditer(text)
    )


def is_workflow(path: str) -> bool:
    return "/.github/workflows/" in path and path.endswith((".yml", ".yaml"))


def untrusted_checkouts(
    written: Iterable[str], texts_for: Callable[[str], list[str]], program: str
) -> list[dict[str, JSON]]:
    """A deferred exec for each workflow `written` whose text checks out a pull request's head under a trigger
    that runs with the repository's secrets."""
    out: list[dict[str, JSON]] = []
    for path in written:
        if not is_workflow(path):
            continue
        head = next((ref for text in texts_for(path) if (ref := _head_checkout(text[:MAX_WORKFLOW_TEXT]))), None)
        if head is not None:
            out.append({"op": "exec", "path": "", "known": True, "recursive": False, "to": "", "program": program,
                        "via": "tool", "class": "unresolved", "code": {"lang": "text", "text": head},
                        "deferred": True, "startup": path, "when": f"{_WHEN} ({head})"})  # fmt: skip
    return out


def _head_checkout(text: str) -> str | None:
    """The head a privileged workflow's checkout names, None when it has none."""
    try:
        doc: Any = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, RecursionError):
        return None
    if not isinstance(doc, Mapping):
        return None
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    names = (
        {triggers} if isinstance(triggers, str) else set(triggers) if isinstance(triggers, (list, Mapping)) else set()
    )
    if not names & _PRIVILEGED:
        return None
    jobs = doc.get("jobs")
    for job in jobs.values() if isinstance(jobs, Mapping) else ():
        steps = job.get("steps") if isinstance(job, Mapping) else None
        for step in steps if isinstance(steps, list) else ():
            given = step.get("with") if isinstance(step, Mapping) else None
            if not isinstance(given, Mapping) or "checkout" not in str(step.get("uses", "")):
                continue
            for key in ("ref", "repository"):
                value = given.get(key)
                if isinstance(value, str) and _PR_HEAD.search(value):
                    return value
    return None
