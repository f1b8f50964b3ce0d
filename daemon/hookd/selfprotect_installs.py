"""An agent's own program replaced by a release the line pins (blind-tamper-14, policies/README.md).

Each agent runs hookd's hooks only from the release that brought its hooks in. A global install of the agent's
npm package at a version (`npm install -g @google/gemini-cli@0.1.9`, `pnpm add -g @anthropic-ai/claude-code@0.2.9`)
or the agent's own installer given one (`claude install 1.0.20`, `opencode upgrade 0.1.48`: AgentSpec
`version_commands`) puts that release where every later session starts; hookd cannot tell from the line whether
it runs hooks at all. Such an install is a later start of the agent (`input.hookd.starts` with `pinned`), which
self_protection asks about. A dist-tag (`@latest`, `stable`) or no target at all updates along the release line
the hooks are on, and passes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from hookd.dialects.launch import package_of
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec
from hookd.types import JSON

# A package manager's global install words (npm install/i/add/update, pnpm add/update, bun add, `yarn global add`).
_INSTALL_WORDS = frozenset({"install", "i", "add", "update", "up", "upgrade"})
_GLOBAL_FLAGS = frozenset({"-g", "--global", "--location=global"})
_MANAGERS = frozenset({"npm", "pnpm", "bun", "yarn"})
_VERSION_START = frozenset("0123456789^~<>=v")


def pinned_installs(commands: list[dict[str, Any]]) -> list[JSON]:
    """Each agent a line's commands install at a version it names, as a later start ({"program", "agent",
    "why", "later", "pinned"})."""
    found: list[JSON] = []
    for command in commands:
        argv = [str(w) for w in command.get("argv") or []]
        name = str(command.get("name") or "")
        for spec, target in _pins(name, argv, AGENTS):
            why = f"it installs {spec.title} at {target}, a release hookd cannot tell runs its hooks"
            found.append({"program": name, "agent": spec.title, "why": why, "later": True, "pinned": True})
    return found


def _pins(name: str, argv: list[str], agents: Mapping[str, AgentSpec]) -> Iterator[tuple[AgentSpec, str]]:
    words = [w for w in argv[1:] if not w.startswith("-")]
    for spec in agents.values():
        if name in spec.process_names and words[:1] and words[0] in spec.version_commands:
            target = words[1] if len(words) > 1 else ""
            if _is_version(target):
                yield spec, target
    if name not in _MANAGERS or not _global_install(name, argv, words):
        return
    for word in words:
        package = package_of(word)
        version = word[len(package) + 1 :]
        owner = next((s for s in agents.values() if package in s.packages), None)
        if owner is not None and _is_version(version):
            yield owner, word


def _global_install(name: str, argv: list[str], words: list[str]) -> bool:
    if name == "yarn":
        return words[:1] == ["global"] and words[1:2] == ["add"]
    return bool(words) and words[0] in _INSTALL_WORDS and not _GLOBAL_FLAGS.isdisjoint(argv)


def _is_version(target: str) -> bool:
    """A release number or range (`1.0.20`, `v0.1.48`, `^0.1`), not a dist-tag (`latest`, `stable`, `next`)."""
    return bool(target) and target[0] in _VERSION_START and any(c.isdigit() for c in target)
