"""How each agent approves every call without asking the person at its keyboard (blind-tamper-13).

hookd answers an allow with nothing, so the agent's own checks still run on what hookd lets through, and in an
interactive session hookd's ask is the agent's own prompt (docs/claude.md, "Replies"; Codex's and Copilot's
PermissionRequest print nothing on an ask: their approval that follows is the ask). An agent told to approve
everything (`--yolo`, `bypassPermissions`, `approval_policy = "never"`) skips those prompts: left for every later
session in its settings or in an alias, that silently lifts a check hookd's answers rely on. A headless start now
loses nothing of hookd's (every agent denies an ask it cannot put to anyone: README.md, the ask row), so only
what is left for later is judged: a settings key moved to such a value (hookd.dialects.spec.keeps_hooks) and an
alias or a started file's line that starts the agent with such an option (hookd.selfprotect_aliases).

Each agent's entry names the options of a start (`(option, value)`, value "" for a flag; `--opt=value` and `--opt
value` alike) and the settings keys whose value approves every call (a list approves when one of its items does),
with the public page that documents them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Approvals:
    options: tuple[tuple[str, str], ...] = ()
    keys: tuple[tuple[str, frozenset[str]], ...] = ()
    source: str = ""
    overrides: tuple[str, ...] = ()  # options that set one of `keys` for the run (`codex -c key=value`)


_GEMINI = Approvals(
    options=(("--yolo", ""), ("-y", ""), ("--approval-mode", "yolo")),
    keys=(("tools.allowed", frozenset({"run_shell_command"})),),  # the tool's bare name: every command it runs
    source="https://dev.to/agentrq/gemini-cli-yolo-mode-read-from-the-source-why-settingsjson-cant-turn-it-on-2kma "
    "(--approval-mode=yolo, --yolo/-y), https://www.mintlify.com/google-gemini/gemini-cli/reference/settings",
)
_OPENCODE = Approvals(
    options=(("--auto", ""),),
    keys=tuple(
        (k, frozenset({"allow"})) for k in ("permission", "permission.*", "permission.bash", "permission.bash.*")
    ),
    source='https://opencode.ai/v1/docs/permissions/ ("permission": "allow" sets every permission at once, `*` '
    "is the rule for what no other names; --auto approves every request not explicitly denied)",
)
APPROVALS: Mapping[str, Approvals] = {
    "gemini": _GEMINI,
    "qwen": Approvals(
        options=_GEMINI.options,
        keys=(*_GEMINI.keys, ("tools.approvalMode", frozenset({"yolo"}))),
        source="https://qwenlm.github.io/qwen-code-docs/en/users/configuration/settings/ (tools.approvalMode, "
        "--approval-mode yolo, --yolo: Gemini CLI's fork)",
    ),
    "claude": Approvals(
        options=(("--dangerously-skip-permissions", ""), ("--permission-mode", "bypassPermissions")),
        keys=(
            ("permissions.defaultMode", frozenset({"bypassPermissions"})),
            ("permissions.allow", frozenset({"Bash", "Bash(*)", "Bash(:*)"})),  # a rule of the tool alone: every use
        ),
        source="https://arsentev.ai/guides/permission-modes-guide (--dangerously-skip-permissions is "
        "--permission-mode bypassPermissions; defaultMode in settings), https://code.claude.com/docs/en/settings",
    ),
    "codex": Approvals(
        options=(
            ("--dangerously-bypass-approvals-and-sandbox", ""),
            ("--yolo", ""),
            ("--ask-for-approval", "never"),
            ("-a", "never"),
            ("--sandbox", "danger-full-access"),
            ("-s", "danger-full-access"),
        ),
        keys=(("approval_policy", frozenset({"never"})), ("sandbox_mode", frozenset({"danger-full-access"}))),
        overrides=("-c", "--config"),
        source="https://developers.openai.com/codex/config-basic/ (approval_policy, sandbox_mode; requirements.toml "
        "may disallow never and danger-full-access), https://developers.openai.com/codex/concepts/sandboxing.md",
    ),
    "copilot": Approvals(
        options=(("--allow-all-tools", ""), ("--allow-all", ""), ("--yolo", "")),
        source="https://docs.github.com/en/copilot/how-tos/copilot-cli/use-copilot-cli/allowing-tools",
    ),
    "droid": Approvals(
        options=(("--skip-permissions-unsafe", ""), ("--auto", "high")),
        source="https://docs.factory.ai/cli/droid-exec/overview (--auto LEVEL; high runs every command not blocked), "
        "https://docs.factory.ai/cli/user-guides/auto-run",
    ),
    "opencode": _OPENCODE,
    "kilo": _OPENCODE,
}


def approving_keys(doc: Mapping[str, Any], keys: Sequence[tuple[str, frozenset[str]]]) -> set[str]:
    """The keys of a settings document whose value approves every call."""
    found = set()
    for key, values in keys:
        value: Any = doc
        for part in key.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        items = value if isinstance(value, list) else [value]
        if any(isinstance(item, str) and (item in values or has_placeholder(item)) for item in items):
            found.add(key)
    return found


# A value OpenCode (and its forks) substitutes in the config's text before parsing it: a variable's value or a
# file's text (https://opencode.ai/docs/config/, "Variables"). What it becomes is not in the text hookd reads.
_PLACEHOLDER = re.compile(r"\{(?:env|file):[^}]*\}")


def has_placeholder(value: Any) -> bool:
    """Does a string (or any string inside a list or mapping) hold a value substituted before parsing?"""
    if isinstance(value, str):
        return _PLACEHOLDER.search(value) is not None
    if isinstance(value, Mapping):
        return any(has_placeholder(k) or has_placeholder(v) for k, v in value.items())
    return isinstance(value, list) and any(has_placeholder(v) for v in value)


def approvals_off(agent: str, words: Sequence[str]) -> str:
    """Why a start with these words (those after the agent's name) approves every call, or ""."""
    approvals = APPROVALS.get(agent)
    for i, word in enumerate(words if approvals is not None else ()):
        name, eq, attached = word.partition("=")
        for option, value in approvals.options if approvals is not None else ():
            given = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if name == option and (not value or given == value):
                return f"{word if eq or not value else f'{word} {value}'} approves every call without asking"
        if approvals is not None and name in approvals.overrides:
            setting = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if _overrides_approval(setting, approvals):
                return f"{name} {setting} approves every call without asking"
    return ""


def _overrides_approval(setting: str, approvals: Approvals) -> bool:
    """`approval_policy="never"` (a dotted key, a TOML value, quoted or bare) sets a key that approves every call."""
    key, eq, value = setting.partition("=")
    doc: dict[str, Any] = {}
    here = doc
    *parents, last = key.strip().split(".")
    for part in parents:
        here = here.setdefault(part, {})
    here[last] = value.strip().strip("\"'")
    return bool(eq) and bool(approving_keys(doc, approvals.keys))
