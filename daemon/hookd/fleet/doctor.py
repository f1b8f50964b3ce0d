"""Doctor's verdict for the status report: which agents hookd is installed for, in which scopes, and what
doctor finds wrong with each (hookd.doctor's own checks, read-only). It reads settings files and may start
`systemctl`, so it runs on a worker thread, at most once per `[status] doctor_interval_seconds`, never on
the decision path; the report carries the last verdict and when it was made."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.dialects.registry import AGENTS
from hookd.doctor import Finding, check_service, check_trust
from hookd.doctor.agents import ScopeFile, check_agents, hookd_entries, read_settings, settings_files
from hookd.errors import HookdError


def verdict(config: Config, home: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(per agent: installed scopes, ok, problems; the whole: ok, problems, checked_at). Checks run from
    `home` as the project directory: the daemon serves every project, so only user-wide scopes count."""
    installed: dict[str, list[str]] = {name: [] for name in AGENTS}
    for spec, scope, path in settings_files(home, os.environ):
        try:
            doc = read_settings(path)
        except HookdError:
            continue  # doctor's check below reports it
        if doc is not None and hookd_entries(ScopeFile(spec, scope, path, doc)):
            installed[spec.name].append(scope)
    findings = check_agents(config, home) + check_service(config) + check_trust(config)
    problems = [f for f in findings if not f.ok]
    agents: dict[str, Any] = {}
    for name, scopes in installed.items():
        mine = [f.detail for f in problems if _agent_of(f) == name]
        if scopes or mine:
            agents[name] = {"installed": scopes, "ok": not mine, "problems": mine}
    summary = {
        "ok": not problems,
        "problems": [f.line() for f in problems],
        "checked_at": time.time(),
    }
    return agents, summary


def _agent_of(finding: Finding) -> str:
    first = finding.check.split(" ", 1)[0]
    return first if first in AGENTS else ""
