"""The pinned installs' first test (hookd.selfprotect_installs.pinned_installs; cost45, docs/performance.md "cost45"):
a command that is neither a package manager nor one of an agent's own programs is not read (npm's config reader and
every agent's installer words skipped). It may not change what is found: the answer is compared with the reading of
every command (kept below as the reference) over commands named by every manager, every agent's program, their
look-alikes and others, with install words, versions, local packages, options and npm's environment."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hookd import selfprotect_installs as si
from hookd.dialects.registry import AGENTS
from hookd.types import JSON


def _ref_pinned_installs(commands: list[dict[str, Any]], cwd: str = "") -> list[JSON]:
    found: list[JSON] = []
    for command in commands:
        argv = [str(w) for w in command.get("argv") or []]
        name = str(command.get("name") or "")
        env = command.get("env") if isinstance(command.get("env"), dict) else {}
        environment = {str(k): str(v) for k, v in (env or {}).items()}
        for spec, target in si._pins(name, argv, AGENTS, environment):
            why = f"it installs {spec.title} at {target}, a release hookd cannot tell runs its hooks"
            found.append({"program": name, "agent": spec.title, "why": why, "later": True, "pinned": True})
        here = str(command.get("cwd") or cwd)
        for source, agent in si.local_agents(name, argv, here, environment):
            why = f"it puts the programs of {source} on PATH, which may replace {agent}'s own"
            found.append({"program": name, "agent": agent, "why": why, "later": True, "pinned": True})
    return found


_PROGRAMS = sorted({n for spec in AGENTS.values() for n in spec.process_names})
_NAMES = [*sorted(si._MANAGERS), *_PROGRAMS, "npx", "corepack", "node", "git", "ls", "sudo", "NPM", "npm.cmd", ""]
_WORDS = [
    "install", "i", "add", "update", "up", "upgrade", "link", "ln", "global", "-g", "--global", "--global=false",
    "--no-global", "--location", "global", "--location=global", "-gf", "--prefix", "/opt", "@latest", "stable",
    "1.0.20", "0.1.48", "v2", "@google/gemini-cli@0.1.9", "@anthropic-ai/claude-code@0.2.9", "claude@1.0",
    "old@npm:@anthropic-ai/claude-code@0.2.9", "./pkg", "./x.tgz", "file:../fork", "~/src/fork", "lodash@4",
]  # fmt: skip


def _commands(world: Path) -> Iterator[list[dict[str, Any]]]:
    chance = random.Random(45)
    words = [*_WORDS, str(world / "fork"), str(world / "agent.tgz")]
    for name in _NAMES:  # each name with each install word, then a version, a tag and a local package
        for verb in ["install", "upgrade", "i", "add", "link"]:
            for target in ["1.0.20", "@latest", "@anthropic-ai/claude-code@0.2.9", str(world / "fork")]:
                yield [{"argv": [name, verb, "-g", target], "name": name, "cwd": str(world)}]
                yield [{"argv": [name, verb, target], "name": name, "env": {"npm_config_global": "1"}}]
    for _ in range(3000):
        line = []
        for _ in range(chance.randint(1, 3)):
            name = chance.choice(_NAMES)
            argv = [name, *chance.choices(words, k=chance.randint(0, 5))]
            env = chance.choice([{}, {"npm_config_global": "true"}, {"NPM_CONFIG_LOCATION": "global"}])
            line.append({"argv": argv, "name": name, "env": env, "cwd": str(world)})
        yield line


@pytest.fixture
def world(tmp_path: Path) -> Path:
    fork = tmp_path / "fork"
    fork.mkdir()
    (fork / "package.json").write_text('{"name": "fork", "bin": {"claude": "cli.js"}}')
    return tmp_path


def test_the_first_test_finds_what_reading_every_command_finds(world: Path) -> None:
    lines = list(_commands(world))
    answered = [si.pinned_installs(line, str(world)) for line in lines]
    assert [a for a in answered if a] != []  # the generation reaches what is pinned
    assert answered == [_ref_pinned_installs(line, str(world)) for line in lines]


def test_a_command_neither_a_manager_nor_an_agents_program_is_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []

    def counted(args: list[str], env: dict[str, str]) -> tuple[list[str], bool]:
        read.append(" ".join(args))
        return npm_config(args, env)

    npm_config = si._npm_config
    monkeypatch.setattr(si, "_npm_config", counted)
    commands = [{"argv": ["git", "status"], "name": "git"}, {"argv": ["ls", "-la", "src"], "name": "ls"}]
    assert si.pinned_installs(commands) == [] and read == []
    assert si.pinned_installs([{"argv": ["npm", "i", "-g", "@anthropic-ai/claude-code@0.2.9"], "name": "npm"}])
    assert read != []
