"""`hookd doctor`'s ledger check: every install hookd's ledger records (hookd.install.ledger) against the file
it wrote. A hook file or plugin deleted, or emptied of hookd's hooks, leaves the agent unguarded at that
scope with no trace in the agent's own files; the ledger remembers it, so doctor names it with the install
that puts it back. Reads only."""

from __future__ import annotations

import shlex
from pathlib import Path

from hookd.config import Config
from hookd.dialects.registry import AGENTS
from hookd.doctor.agents import ScopeFile, hookd_entries, read_settings
from hookd.doctor.findings import Finding
from hookd.errors import HookdError
from hookd.install.ledger import Install, LedgerError, ledger_path, read_ledger

CHECK = "install ledger"


def check_ledger(config: Config) -> list[Finding]:
    path = ledger_path(config)
    try:
        installs = read_ledger(path)
    except LedgerError as exc:
        return [Finding(CHECK, False, f"{exc}: doctor cannot tell which of hookd's hook files were removed",
                        f"mv {shlex.quote(str(path))} {shlex.quote(str(path) + '.bad')}, then hookd install "
                        "again for each agent and scope you use")]  # fmt: skip
    return [finding for install in installs for finding in _check(install, path)]


def _check(install: Install, ledger: Path) -> list[Finding]:
    spec = AGENTS.get(install.agent)
    label = f"{install.agent} {install.scope}"
    if spec is None or install.scope not in spec.install.scopes:
        return [Finding(label, False, f"{ledger} records an install for an agent or scope this hookd does not "
                        f"know ({install.path})", f"remove that entry from {ledger}")]  # fmt: skip
    try:
        doc = read_settings(install.path, spec)
    except HookdError as exc:
        return [Finding(label, False, str(exc), f"fix {install.path} by hand")]
    if doc is not None and hookd_entries(ScopeFile(spec, install.scope, install.path, doc)):
        return []
    what = "is gone" if not install.path.exists() else "no longer holds hookd's hooks"
    when = install.installed.strftime("%Y-%m-%d %H:%M UTC")
    where = f"--client {install.agent} --scope {install.scope}"
    if install.project is not None:
        where += f" --project-dir {shlex.quote(str(install.project))}"
        if not install.project.is_dir():  # nothing left to guard: forget the install
            detail = f"hookd's {install.path} is gone with its project (installed {when})"
            return [Finding(label, False, detail, f"hookd uninstall {where}")]
    detail = f"hookd's {install.path} {what} (installed {when}): {spec.title} runs unguarded here"
    return [Finding(label, False, detail, f"hookd install {where}")]
