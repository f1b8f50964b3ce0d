"""An agent's settings edited in place by a shell line whose resulting text hookd computes (hookd.selfprotect_edits):
judged by their keys as a file tool's write is; every edit it cannot compute stays guarded whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.config import Config
from hookd.install import command_plan, install
from hookd.selfprotect_edits import shell_texts
from tests.unit.test_selfprotect import shell_decisions

SETTINGS = ".gemini/settings.json"


@pytest.fixture
def settings(world: tuple[Path, Path]) -> Path:
    """The project's Gemini settings as `hookd install --client gemini` writes them, beside a model and a theme."""
    _, project = world
    path = project / SETTINGS
    path.parent.mkdir()
    path.write_text(json.dumps({"model": {"name": "gemini-2.5-pro"}, "theme": "Default"}, indent=2) + "\n")
    plan, _ = command_plan(Config(), "gemini", path, None)
    install(plan)
    return path


@pytest.mark.parametrize(
    "command",
    [
        f"sed -i 's/gemini-2.5-pro/gemini-2.5-flash/' {SETTINGS}",
        f"sed -i.bak -e 's/\"Default\"/\"GitHub\"/g' {SETTINGS}",
        f"sed -E -i 's/(\"theme\": )\"[A-Za-z]+\"/\\1\"GitHub\"/' {SETTINGS}",
        f"yq -i -o json '.theme = \"GitHub\"' {SETTINGS}",
        f"jq '.theme = \"GitHub\" | .model.name = \"gemini-2.5-flash\"' {SETTINGS} > t.json && mv t.json {SETTINGS}",
        f"jq --indent 4 '.context.fileName += [\"AGENTS.md\"]' {SETTINGS} | sponge {SETTINGS}",
        f"vim -es -c '%s/Default/GitHub/g' -c 'wq' {SETTINGS}",  # plain text: `.` is a pattern in Vim,
        f"ex -s +'%s/Default/GitHub/' +x {SETTINGS}",
    ],
)  # fmt: skip
def test_an_in_place_edit_that_keeps_the_hooks_is_allowed(
    world: tuple[Path, Path], settings: Path, command: str
) -> None:
    home, project = world
    assert shell_decisions(home, project, [command])[0][0] == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        f"sed -i 's/hookd_shim.py/true/' {SETTINGS}",  # computed: the hook's command is gone
        f"sed -i 's/\"hooks\"/\"hooks_off\"/' {SETTINGS}",
        f"sed -i 's/\"enabled\": true/\"enabled\": false/' {SETTINGS}",  # hooksConfig switched off
        f"yq -i -o json '.hooksConfig.enabled = false' {SETTINGS}",
        f"jq 'del(.hooks)' {SETTINGS} > /tmp/s.json && mv /tmp/s.json {SETTINGS}",
        f"jq '.hooks.BeforeTool = []' {SETTINGS} | sponge {SETTINGS}",
        f"vim -es -c '%s/hookd/nope/g' -c 'wq' {SETTINGS}",
        # not computed: another command, another script or option, a second writer of the file
        f"sed -i '/hooks/d' {SETTINGS}",
        f"sed -i -e 's/Default/GitHub/' -e '1e touch x' {SETTINGS}",
        f"sed -i 's/Default/GitHub/w /tmp/x' {SETTINGS}",
        f"sed -n -i 's/Default/GitHub/' {SETTINGS}",
        f"sed -i 's/Default/GitHub/' {SETTINGS} && echo '{{}}' > {SETTINGS}",
        f"sed -i 's/Default/GitHub/' {SETTINGS} > {SETTINGS}",
        f"yq -i '.theme = \"GitHub\"' {SETTINGS}",  # yq's output format not said: YAML in a JSON file
        f"jq -r '.theme = \"GitHub\"' {SETTINGS} > /tmp/s.json && mv /tmp/s.json {SETTINGS}",
        f"jq '.theme = env.X' {SETTINGS} > /tmp/s.json && mv /tmp/s.json {SETTINGS}",
        f"jq '.theme = \"GitHub\"' {SETTINGS} > /tmp/s.json && mv /tmp/other.json {SETTINGS}",
        f"vim -es -c '%s/Default/GitHub/' -c '!touch x' -c wq {SETTINGS}",
        f"vim -es -c '%s/De.ault/GitHub/' -c wq {SETTINGS}",
    ],
)  # fmt: skip
def test_an_edit_that_drops_the_hooks_or_is_not_computed_is_denied(
    world: tuple[Path, Path], settings: Path, command: str
) -> None:
    home, project = world
    assert shell_decisions(home, project, [command])[0][0] != "allow", command


@pytest.mark.parametrize(
    ("script", "old", "new"),
    [
        ("s/a.c/X/g", "abc a.c\n", "X X\n"),  # BRE: `.` any character
        ("s/a\\.c/X/", "abc a.c\n", "abc X\n"),
        ("s/(x)+/Y/", "(x)+ xx\n", "Y xx\n"),  # BRE: parentheses and plus are plain
        ("s/\\(x\\)\\1/[&]/", "xx\n", "[xx]\n"),  # grouped, back-referenced, & the match
        ("s/^a/b/;s/c$/d/", "ac\nca\n", "bd\nca\n"),  # per line, anchored
        ("s/a$b/X/", "a$b\n", "X\n"),  # BRE: `$` not last is plain
    ],
)
def test_sed_substitutions_are_computed_as_gnu_sed_does(tmp_path: Path, script: str, old: str, new: str) -> None:
    path = str(tmp_path / "f.json")
    command = {"argv": ["sed", "-i", script, path]}
    effects = [{"op": "write", "path": path, "program": "sed"}]
    assert shell_texts([command], effects, path, old, str(tmp_path)) == [new]
