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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Approvals:
    options: tuple[tuple[str, str], ...] = ()
    keys: tuple[tuple[str, frozenset[str]], ...] = ()
    source: str = ""
    overrides: tuple[str, ...] = ()  # options that set one of `keys` for the run (`codex -c key=value`)
    # keys whose items are permission rules `TOOL(PATTERN)` for the shell tool `TOOL` (key, tool, whether a pattern
    # is a prefix of the command whatever it ends with, as Gemini reads `run_shell_command(git)`): judged by what
    # the pattern grants (`grants_every_command`)
    rules: tuple[tuple[str, str, bool], ...] = ()
    # keys whose value maps a command pattern (a glob of the whole command) to its action: a pattern that grants
    # every command with the action that approves (OpenCode's `permission.bash`: {"git *": "allow"})
    patterns: tuple[tuple[str, str], ...] = ()
    # a start's options whose values are permission rules (option, the shell tool, whether a pattern is a prefix):
    # `claude --allowedTools Bash`, `copilot --allow-tool 'shell(sh:*)'`, judged as the settings' rules are
    rule_options: tuple[tuple[str, str, bool], ...] = ()


NO_APPROVALS = Approvals()

# A key's part that stands for every name at its place (a Codex profile, an OpenCode agent): each one's keys count,
# whether or not it is the one selected now (a later start or a config can select it).
ANY = "<any>"


_GEMINI = Approvals(
    options=(("--yolo", ""), ("-y", ""), ("--approval-mode", "yolo")),
    # the tool's bare name (or its class's, `ShellTool`, that Gemini CLI reads as the same tool): every command it runs
    keys=(("tools.allowed", frozenset({"run_shell_command", "ShellTool"})),),
    rules=(("tools.allowed", "run_shell_command", True), ("tools.allowed", "ShellTool", True)),
    rule_options=(("--allowed-tools", "run_shell_command", True), ("--allowed-tools", "ShellTool", True)),
    source="https://dev.to/agentrq/gemini-cli-yolo-mode-read-from-the-source-why-settingsjson-cant-turn-it-on-2kma "
    "(--approval-mode=yolo, --yolo/-y), https://www.mintlify.com/google-gemini/gemini-cli/reference/settings",
)
_OPENCODE_PERMISSION = ("permission", "permission.*", "permission.bash", "permission.bash.*")
_OPENCODE = Approvals(
    options=(("--auto", ""),),
    # an agent's own `permission` (`agent.build.permission`, `mode.*` its older name) overrides the config's
    keys=tuple(
        (f"{scope}{k}", frozenset({"allow"}))
        for scope in ("", f"agent.{ANY}.", f"mode.{ANY}.")
        for k in _OPENCODE_PERMISSION
    ),
    patterns=tuple((f"{scope}permission.bash", "allow") for scope in ("", f"agent.{ANY}.", f"mode.{ANY}.")),
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
        rules=(("permissions.allow", "Bash", False),),
        rule_options=(("--allowedTools", "Bash", False), ("--allowed-tools", "Bash", False)),
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
        keys=tuple(
            (f"{scope}{key}", frozenset({value}))
            for scope in ("", f"profiles.{ANY}.")  # a profile's keys, selected by `profile` or `--profile NAME`
            for key, value in (("approval_policy", "never"), ("sandbox_mode", "danger-full-access"))
        ),
        overrides=("-c", "--config"),
        source="https://developers.openai.com/codex/config-basic/ (approval_policy, sandbox_mode; requirements.toml "
        "may disallow never and danger-full-access), https://developers.openai.com/codex/concepts/sandboxing.md",
    ),
    "copilot": Approvals(
        options=(("--allow-all-tools", ""), ("--allow-all", ""), ("--yolo", "")),
        rule_options=(("--allow-tool", "shell", False),),  # `shell(git:*)`, or `shell` alone: every command
        source="https://docs.github.com/en/copilot/how-tos/copilot-cli/use-copilot-cli/allowing-tools",
    ),
    "droid": Approvals(
        options=(("--skip-permissions-unsafe", ""), ("--auto", "high")),
        keys=(("autonomyLevel", frozenset({"auto-high"})),),
        source="https://docs.factory.ai/cli/droid-exec/overview (--auto LEVEL; high runs every command not blocked), "
        "https://docs.factory.ai/cli/user-guides/auto-run (the level is saved in settings for the next session), "
        "https://docs.factory.ai/cli/configuration/settings (autonomyLevel: normal, spec, auto-low, auto-medium, "
        "auto-high)",
    ),
    "opencode": _OPENCODE,
    "kilo": _OPENCODE,
}


# Does a program, with any words after it, run any command or code (a shell, an interpreter, a launcher)?
RunsAny = Callable[[str], bool]


def runs_none(program: str) -> bool:
    return False


def approving_keys(doc: Mapping[str, Any], approvals: Approvals, runs_any: RunsAny = runs_none) -> set[str]:
    """The keys of a settings document (each as found: `profiles.fast.approval_policy`) whose value approves every
    call: a value that does, a rule or pattern that grants every command (`grants_every_command`), a value the
    agent fills in before parsing (`has_placeholder`)."""
    found = set()
    for key, values in approvals.keys:
        for at, value in values_at(doc, key):
            items = value if isinstance(value, list) else [value]
            if any(isinstance(item, str) and (item in values or has_placeholder(item)) for item in items):
                found.add(at)
    for key, tool, prefix in approvals.rules:
        for at, value in values_at(doc, key):
            for item in value if isinstance(value, list) else [value]:
                pattern = _rule_pattern(item, tool)
                if pattern is not None and grants_every_command(pattern, prefix, runs_any):
                    found.add(f"{at}: {item}")
    for key, action in approvals.patterns:
        for at, value in values_at(doc, key):
            granted = value.items() if isinstance(value, Mapping) else ()
            found |= {f"{at}.{p}" for p, a in granted if a == action and grants_every_command(p, True, runs_any)}
    return found


def values_at(doc: Any, key: str) -> list[tuple[str, Any]]:
    """The values at a dotted key, each with the key as found (`ANY` standing for every name at its place)."""
    found: list[tuple[str, Any]] = [("", doc)]
    for part in key.split("."):
        found = [
            (f"{at}.{name}" if at else name, value[name])
            for at, value in found
            if isinstance(value, Mapping)
            for name in (list(value) if part == ANY else [part] if part in value else [])
        ]
    return found


def _rule_pattern(item: Any, tool: str) -> str | None:
    """The pattern of a rule `TOOL(PATTERN)` for `tool`; None for a rule of another tool or no rule."""
    if not isinstance(item, str):
        return None
    name, paren, rest = item.strip().partition("(")
    return rest.removesuffix(")") if paren and name.strip() == tool and rest.endswith(")") else None


_GLOB = re.compile(r"[*?\[]")


def grants_every_command(pattern: str, prefix: bool, runs_any: RunsAny) -> bool:
    """Does a command pattern grant every command: one whose program is a glob (it matches any program, a shell
    among them), or one that leaves the words after a program that runs whatever it is given (a shell, an
    interpreter, a launcher: `runs_any`) open, with nothing but options before them (`bash:*`, `sh -c *`, `node
    -e`); `prefix`: the pattern matches every command that starts with it."""
    words = pattern.replace(":*", " *").split()
    if not words or _GLOB.search(words[0]):
        return True
    open_rest = prefix or words[-1].endswith("*")
    given = [w for w in words[1:] if w != "*"]
    return open_rest and runs_any(words[0].rsplit("/", 1)[-1]) and all(w.startswith("-") for w in given)


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


def approvals_off(agent: str, words: Sequence[str], runs_any: RunsAny = runs_none) -> str:
    """Why a start with these words (those after the agent's name) approves every call, or ""."""
    approvals = APPROVALS.get(agent)
    for i, word in enumerate(words if approvals is not None else ()):
        name, eq, attached = word.partition("=")
        for option, tool, prefix in approvals.rule_options if approvals is not None else ():
            given = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if name == option and any(_grants_all(rule, tool, prefix, runs_any) for rule in _rules(given)):
                return f"{name} {given} approves every call without asking"
        for option, value in approvals.options if approvals is not None else ():
            given = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if name == option and (not value or given == value):
                return f"{word if eq or not value else f'{word} {value}'} approves every call without asking"
        if approvals is not None and name in approvals.overrides:
            setting = attached if eq else (words[i + 1] if i + 1 < len(words) else "")
            if _overrides_approval(setting, approvals):
                return f"{name} {setting} approves every call without asking"
    return ""


def _grants_all(rule: str, tool: str, prefix: bool, runs_any: RunsAny) -> bool:
    pattern = _rule_pattern(rule, tool)
    return rule.strip() == tool or (pattern is not None and grants_every_command(pattern, prefix, runs_any))


def _rules(value: str) -> list[str]:
    """An option's rules, separated by commas or spaces outside a rule's parentheses (`Bash(git *),Edit Read`)."""
    rules: list[str] = []
    depth, current = 0, ""
    for char in value:
        depth += (char == "(") - (char == ")")
        if depth == 0 and (char == "," or char.isspace()):
            rules, current = [*rules, current] if current else rules, ""
        else:
            current += char
    return [*rules, current] if current else rules


def _overrides_approval(setting: str, approvals: Approvals) -> bool:
    """`approval_policy="never"` (a dotted key, a TOML value, quoted or bare) sets a key that approves every call."""
    key, eq, value = setting.partition("=")
    doc: dict[str, Any] = {}
    here = doc
    *parents, last = key.strip().split(".")
    for part in parents:
        here = here.setdefault(part, {})
    here[last] = value.strip().strip("\"'")
    return bool(eq) and bool(approving_keys(doc, approvals))
