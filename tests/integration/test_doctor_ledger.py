"""hookd's install ledger (hookd.install.ledger) and doctor's check of it (hookd.doctor.ledger): the real
`hookd install --client <agent>` (a subprocess) writes the agent's files in its own layout and records the
install; the hook file or plugin is then removed or emptied, and doctor must name that scope as unguarded,
with the install that puts it back. Parametrised over the registry, so a new agent is tested here too."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hookd.config import load_config
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec
from hookd.doctor.ledger import check_ledger
from hookd.install.ledger import LEDGER_NAME

AGENT_VARS = ("XDG_", "HOOKD_", "GEMINI_", "CLAUDE_", "CODEX_", "COPILOT_", "QWEN_", "OPENCODE_", "KILO_")
NAMES = tuple(AGENTS)
# The agents whose hooks are a plugin file of hookd's own (no settings file that could keep a record).
PLUGIN_AGENTS = tuple(n for n, s in AGENTS.items() if s.install.text_settings and s.install.text_settings.doc)


@dataclass
class World:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def config(self) -> Path:
        return self.root / "config.toml"

    @property
    def ledger(self) -> Path:
        return self.root / "state" / LEDGER_NAME

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_VARS)}
        return env | {"HOME": str(self.home), "HOOKD_SYSTEM_ROOT": str(self.root / "sys")}

    def hookd(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hookd", "--config", str(self.config), *args],
            env=self.env, cwd=self.root, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    def install(self, name: str, scope: str = "user") -> subprocess.CompletedProcess[str]:
        done = self.hookd("install", "--client", name, "--scope", scope, "--project-dir", str(self.project),
                          "--shim", "python", "--all-events")  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    def settings(self, spec: AgentSpec, scope: str = "user") -> Path:
        env = {"HOOKD_SYSTEM_ROOT": str(self.root / "sys")}
        return spec.install.settings_path(scope, self.home, self.project, env)

    def installs(self) -> list[dict[str, Any]]:
        return list(json.loads(self.ledger.read_text())["installs"])

    def problems(self) -> list[str]:
        return [f.line() for f in check_ledger(load_config(str(self.config)))]


@pytest.fixture
def world(tmp_path: Path) -> World:
    root = tmp_path.resolve()
    for part in ("home", "project", "sys"):
        (root / part).mkdir()
    world = World(root)
    world.config.write_text(f'[daemon]\nruntime_dir = "{root / "run"}"\nstate_dir = "{root / "state"}"\n')
    return world


def gone_line(world: World, spec: AgentSpec, scope: str, what: str = "is gone") -> str:
    (entry,) = [e for e in world.installs() if (e["agent"], e["scope"]) == (spec.name, scope)]
    installed = datetime.strptime(entry["installed"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert abs(datetime.now(UTC) - installed) < timedelta(minutes=5)
    fix = f"hookd install --client {spec.name} --scope {scope}"
    if scope == "project":
        fix += f" --project-dir {world.project}"
    return (f"PROBLEM  {spec.name} {scope}: hookd's {entry['path']} {what} "
            f"(installed {installed:%Y-%m-%d %H:%M} UTC): {spec.title} runs unguarded here; fix: {fix}")  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_a_removed_hook_file_is_named_with_its_install(world: World, name: str) -> None:
    spec = AGENTS[name]
    world.install(name)
    path = world.settings(spec)
    (entry,) = world.installs()
    assert (entry["agent"], entry["scope"], entry["path"], entry["files"][0]) == (name, "user", str(path), str(path))
    assert world.problems() == []
    path.unlink()
    assert world.problems() == [gone_line(world, spec, "user")]
    world.install(name)  # the fix doctor names puts it back
    assert world.problems() == []


@pytest.mark.parametrize("name", NAMES)
def test_a_hook_file_emptied_of_hookd_is_named(world: World, name: str) -> None:
    spec = AGENTS[name]
    world.install(name)
    world.settings(spec).write_text("")
    assert world.problems() == [gone_line(world, spec, "user", "no longer holds hookd's hooks")]


@pytest.mark.parametrize("name", PLUGIN_AGENTS)
def test_doctor_names_a_removed_project_plugin(world: World, name: str) -> None:
    """The whole command: `hookd doctor` prints the line and exits 1 when a project's plugin is deleted."""
    spec = AGENTS[name]
    world.install(name, "project")
    plugin = world.settings(spec, "project")
    assert plugin.suffix == ".js" and plugin.is_relative_to(world.project)
    plugin.unlink()
    done = world.hookd("doctor", "--no-sandbox", "--project-dir", str(world.project))
    assert done.returncode == 1
    assert gone_line(world, spec, "project") in done.stdout.splitlines(), done.stdout


@pytest.mark.parametrize("name", NAMES)
def test_uninstall_removes_exactly_its_entry(world: World, name: str) -> None:
    other = next(n for n in NAMES if n != name)
    world.install(other)
    world.install(name)
    assert [e["agent"] for e in world.installs()] == [other, name]
    done = world.hookd("uninstall", "--client", name, "--project-dir", str(world.project))
    assert done.returncode == 0, done.stderr
    assert [e["agent"] for e in world.installs()] == [other]
    assert world.problems() == []


def test_installing_again_keeps_one_entry_and_its_time(world: World) -> None:
    name = NAMES[0]
    world.install(name)
    first = world.installs()
    world.install(name)  # nothing changed: the entry and its install time stay
    assert world.installs() == first


def test_a_project_that_is_gone_is_forgotten_by_uninstall(world: World) -> None:
    spec = AGENTS[NAMES[0]]
    world.install(spec.name, "project")
    path = world.installs()[0]["path"]
    shutil.rmtree(world.project)
    fix = f"hookd uninstall --client {spec.name} --scope project --project-dir {world.project}"
    (line,) = world.problems()
    assert line.startswith(f"PROBLEM  {spec.name} project: hookd's {path} is gone with its project (installed ")
    assert line.endswith(f"; fix: {fix}")
    done = world.hookd(*fix.split()[1:])
    assert done.returncode == 0, done.stderr
    assert world.installs() == [] and world.problems() == []


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "not valid JSON (line 1 column 2)"),
        ('{"version": 1, "installs": [{"agent": 1}]}', "an install entry is not an object"),
        ("[]", "not a version 1 install ledger"),
    ],
    ids=["json", "entry", "shape"],
)
def test_a_corrupt_ledger_is_one_doctor_line_and_never_breaks_install(world: World, text: str, why: str) -> None:
    name = NAMES[0]
    world.ledger.parent.mkdir()
    world.ledger.write_text(text)
    done = world.install(name)  # the settings are written; the ledger is left as it was
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and why in warnings[0], done.stderr
    assert world.settings(AGENTS[name]).is_file()
    assert world.ledger.read_text() == text
    (line,) = world.problems()
    assert line == (f"PROBLEM  install ledger: {world.ledger}: {why}" + line.split(why, 1)[1])
    assert "doctor cannot tell which of hookd's hook files were removed; fix: mv " in line
    done = world.hookd("uninstall", "--client", name, "--project-dir", str(world.project))
    assert done.returncode == 0 and "warning:" in done.stderr, done.stderr
    assert world.ledger.read_text() == text
