"""hookd.enrich.facts: the per-argument facts of `input.shell`, and the path class every effect carries.

destructive_shell judges effects (input.effects) and reads their `class`; it no longer has a Rego twin of
these facts (`_arg_facts`), so the class is checked here over the corpus and hand-picked edges."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_share import in_share

from hookd.enrich.facts import FACTS_VERSION, add_arg_facts, arg_class, static_dir, tree_of
from hookd.enrich.shell import enrich_shell, parse_shell
from hookd.types import Caller, Event, NormalisedEvent, ToolCall, ToolKind

ROOT = Path(__file__).resolve().parents[3]
POLICY = ROOT / "policies" / "destructive_shell"

EDGES = [
    "rm -rf /", "rm -rf /*", "rm -rf /.*", "rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf /home", "rm -rf /home/",
    "rm -rf /usr", "rm -rf /usr/local/x", "rm -rf /opt", "rm -rf /opt/x", "rm -rf /tmp", "rm -rf /tmp/",
    "rm -rf /tmp/x", "rm -rf /tmp/hookd-0", "rm -rf /var/tmp/y", "rm -rf /private/tmp/z", "rm -rf /private/x",
    "rm -rf .", "rm -rf *", "rm -rf ./*", "rm -rf build", "rm -rf ../x", "rm -rf ../../..", "rm -rf $X",
    "rm -rf /tmp/$X", "rm -rf /$X", "rm -rf $HOME/$X", "rm -rf ~/proj/$X", "rm -rf /home/alice/$X",
    "rm -rf `pwd`/x", "rm -rf /srv/`id`", "rm -rf \"/tmp/a\nb/$X\"", "rm -rf \"/tmp/$X\n/etc\"", "rm -rf <(x)",
    "cd /tmp && rm -rf build", "cd $D && rm -rf x", "chmod -R 777 /", "chown -R u /home/alice", "rm -rf /System/L",
    "rm -rf /Users", "rm -rf /etc/", "rm -rf //", "rm -rf /lib64/x", "rm -rf x/.*",
]  # fmt: skip
SETTINGS = [
    ("/home/alice", "/home/alice/proj"),
    ("/home/alice/", "/tmp/work/proj/"),
    ("/", "/usr/src/proj"),
    ("/root", "/"),
]


def corpus_commands(part: int = 0) -> list[str]:
    """The policies' cases' commands and those of part `part` of the corpus's share (tests/corpus_share.py)."""
    commands = []
    for path in sorted((ROOT / "policies" / "corpus").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if isinstance(entry.get("command"), str) and in_share(entry["command"], part):
                commands.append(entry["command"])
    for path in sorted((ROOT / "policies").glob("*/cases/*.json")):
        for case in json.loads(path.read_text()):
            command = case["payload"].get("tool_input", {}).get("command")
            if isinstance(command, str):
                commands.append(command)
    return commands


def shell_of(command: str, home: str, project: str) -> dict[str, Any]:
    text = command.replace("${HOME}", home.rstrip("/") or "/").replace("${PROJECT}", project)
    shell = parse_shell(text, home=home.rstrip("/") or "/", base_dir=project, project_dir=project)
    return add_arg_facts(shell, home=home, project_dir=project)


def python_facts(shell: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: a[k] for k in ("tree", "class", "unresolved")} for c in shell["commands"] for a in c["args"]]


@pytest.mark.timeout(900)  # grows with the corpus; the limit only stops a stuck run
@pytest.mark.parametrize(("home", "project"), SETTINGS)
def test_every_argument_of_the_corpus_gets_a_class(home: str, project: str) -> None:
    commands = [*EDGES, *corpus_commands(part=SETTINGS.index((home, project)))]  # each setting its own part
    assert len(commands) > 900
    classes: set[str] = set()
    for command in commands:
        ours = python_facts(shell_of(command, home, project))
        assert all(f["tree"] == "" or f["tree"].startswith("/") for f in ours), command
        classes.update(f["class"] for f in ours)
    assert classes <= {"root", "home", "system", "project-root", "outside", "unresolved", "project", "scratch"}
    if home == "/home/alice":
        assert classes == {"root", "home", "system", "project-root", "outside", "unresolved", "project", "scratch"}


@pytest.mark.parametrize(
    ("path", "tree"),
    [("/", "/"), ("/*", "/"), ("/.*", "/"), ("/a/*", "/a"), ("/a/.*", "/a"), ("/a/b*", "/a/b*"), ("/a", "/a")],
)
def test_tree_strips_one_trailing_glob(path: str, tree: str) -> None:
    assert tree_of(path) == tree


@pytest.mark.parametrize(
    ("raw", "path", "in_project", "expected"),
    [
        ("/", "/", False, "root"),
        ("~/x/..", "/home/alice", False, "home"),
        ("/home", "/home", False, "home"),
        ("/usr/lib", "/usr/lib", False, "system"),
        ("/usr/src/p/x", "/usr/src/p/x", True, "project"),
        ("/opt", "/opt", False, "system"),
        ("/opt/x", "/opt/x", False, "outside"),
        (".", "/home/alice/proj", True, "project-root"),
        ("*", "/home/alice/proj/*", True, "project-root"),
        ("build", "/home/alice/proj/build", True, "project"),
        ("/tmp/x", "/tmp/x", False, "scratch"),
        ("/tmp/hookd-0", "/tmp/hookd-0", False, "outside"),
        ("/tmp/$X", "/tmp/$X", False, "outside"),
        ("$X", "/home/alice/proj/$X", False, "unresolved"),
        ("/home/alice/$X", "/home/alice/$X", False, "unresolved"),
        ("/srv/`id`", "/srv/`id`", False, "outside"),
        ("/tmp/$X\n/etc", "/tmp/$X\n/etc", False, "outside"),  # the regex cuts nothing: `.` stops at the newline
    ],
)
def test_arg_class(raw: str, path: str, in_project: bool, expected: str) -> None:
    arg = {"raw": raw, "path": path, "in_project": in_project}
    assert arg_class(arg, tree_of(path), home="/home/alice", project="/home/alice/proj") == expected


def test_without_a_home_nothing_is_home() -> None:
    arg = {"raw": "/home", "path": "/home", "in_project": False}
    assert arg_class(arg, "/home", home=None, project="/p") == "system"
    assert arg_class(arg, "/home", home="", project="/p") == "system"


def test_static_dir_cuts_before_the_first_expansion() -> None:
    assert static_dir("/tmp/x$Y") == "/tmp"
    assert static_dir("/x$Y") == "/"
    assert static_dir("$X/y") is None
    assert static_dir("a/$X") is None
    assert static_dir("/tmp/$X\n/etc/y") == "/tmp/$X\n/etc"  # no `$` after the last newline: nothing cut


def event(command: str, project: str, facts: dict[str, Any]) -> NormalisedEvent:
    return NormalisedEvent(
        client="gemini",
        event=Event.BEFORE_TOOL,
        client_event="BeforeTool",
        session_id="s",
        tool=ToolCall("run_shell_command", ToolKind.SHELL, {"command": command}),
        payload={},
        cwd=project,
        project_dir=project,
        caller=Caller(uid=1000, gid=1000, pid=1),
        facts=facts,
    )


def test_enrich_shell_adds_the_facts_from_the_input_home(tmp_path: Path) -> None:
    project = str(tmp_path)
    enriched = enrich_shell(event("rm -rf /home/alice/x/.. build", project, {"home": "/home/alice"}))
    shell = enriched.input_document()["shell"]
    assert isinstance(shell, dict)
    assert shell["facts"] == FACTS_VERSION
    assert [(a["tree"], a["class"], a["unresolved"]) for a in shell["commands"][0]["args"]] == [
        ("/home/alice", "home", False),
        (f"{project}/build", "project", False),
    ]
    # no `home` in the input: the policies see none, and neither do the facts
    bare = enrich_shell(event("rm -rf /home", project, {})).input_document()["shell"]
    assert isinstance(bare, dict)
    assert bare["commands"][0]["args"][0]["class"] == "system"


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/home/alice/.cache", "scratch"), ("/home/alice/.cache/pip", "scratch"),
     ("/home/alice/.gradle/caches", "scratch"), ("/home/alice/.m2/repository/com/x", "scratch"),
     ("/home/alice/Library/Developer/Xcode/DerivedData", "scratch"), ("/home/alice/.cachex", "outside"),
     ("/home/alice/.gradle", "outside"), ("/home/alice/.config", "outside"), ("/home/bob/.cache", "outside")],
)  # fmt: skip
def test_a_cache_of_the_home_is_scratch(path: str, expected: str) -> None:
    """What a tool downloads or builds again (the catalogue's `caches`: XDG's ~/.cache, Gradle's, Maven's, Xcode's
    DerivedData) loses no work when deleted: `rm -rf ~/.cache/pip` is everyday, `rm -rf ~/.config` is not."""
    arg = {"raw": path, "path": path, "in_project": False}
    assert arg_class(arg, path, home="/home/alice", project="/home/alice/proj") == expected
