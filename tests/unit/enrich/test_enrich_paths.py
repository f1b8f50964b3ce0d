"""hookd.enrich.paths: the paths a file tool touches, resolved into `input.paths` (docs/policies.md)."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from hookd.enrich.paths import (
    PathResolver,
    _realpath_memo,
    enrich_paths,
    resolve_path,
    tool_paths,
)
from hookd.types import Caller, Event, NormalisedEvent, ToolCall, ToolKind, ToolSpec

HOME = "/nonexistent-hookd-home/alice"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    project.mkdir()
    return project


def resolve(raw: str, proj: Path, base_dir: Path | str | None = None) -> dict[str, Any]:
    return resolve_path(raw, home=HOME, base_dir=str(base_dir or proj), project_dir=str(proj))


# --------------------------------------------------------------------------------------------------
# resolve_path


@pytest.mark.parametrize(
    ("raw", "relative", "in_project"),
    [
        ("a.txt", "a.txt", True),
        ("./src/../b.txt", "b.txt", True),
        ("src/", "src", True),
        (".", "", True),
        ("", "", True),
        ("..", "..", False),
        ("../.env", "../.env", False),
        ("src/../../x", "../x", False),
        ("a//b///c", "a/b/c", True),
    ],
)
def test_relative_paths_resolve_against_the_base(proj: Path, raw: str, relative: str, in_project: bool) -> None:
    expected = os.path.normpath(proj / relative) if relative else str(proj)
    assert resolve(raw, proj) == {"raw": raw, "path": expected, "in_project": in_project}


def test_absolute_paths(proj: Path) -> None:
    assert resolve(f"{proj}/x/../y", proj) == {
        "raw": f"{proj}/x/../y",
        "path": f"{proj}/y",
        "in_project": True,
    }
    assert resolve("/etc/../etc/passwd", proj)["path"] == os.path.realpath("/etc/passwd")
    assert resolve("/etc/passwd", proj)["in_project"] is False
    assert resolve("/", proj) == {"raw": "/", "path": "/", "in_project": False}


def test_the_tilde(proj: Path) -> None:
    assert resolve("~", proj) == {"raw": "~", "path": HOME, "in_project": False}
    assert resolve("~/.ssh/id_rsa", proj) == {
        "raw": "~/.ssh/id_rsa",
        "path": f"{HOME}/.ssh/id_rsa",
        "in_project": False,
    }
    assert resolve("~root/x", proj)["path"] == f"{proj}/~root/x"  # not ours to expand
    assert resolve("a/~/b", proj)["path"] == f"{proj}/a/~/b"


def test_a_project_inside_home_sees_tilde_paths_inside_it(tmp_path: Path) -> None:
    home = (tmp_path / "home").resolve()
    project = home / "proj"
    project.mkdir(parents=True)
    result = resolve_path("~/proj/src/a.py", home=str(home), base_dir="/", project_dir=str(project))
    assert result == {"raw": "~/proj/src/a.py", "path": f"{project}/src/a.py", "in_project": True}


def test_a_sibling_with_the_same_prefix_is_outside(proj: Path) -> None:
    assert resolve(f"{proj}2/x", proj)["in_project"] is False
    assert resolve(f"{proj}-old", proj)["in_project"] is False


def test_a_relative_base_dir_is_taken_from_the_project(proj: Path) -> None:
    (proj / "pkg").mkdir()
    assert resolve("a", proj, base_dir="pkg")["path"] == f"{proj}/pkg/a"


def test_a_symlink_out_of_the_project_is_outside(proj: Path, tmp_path: Path) -> None:
    outside = (tmp_path / "outside").resolve()
    outside.mkdir()
    (outside / "secret").write_text("x")
    (proj / "escape").symlink_to(outside)
    (proj / "file-link").symlink_to(outside / "secret")
    assert resolve("escape/secret", proj) == {
        "raw": "escape/secret",
        "path": f"{outside}/secret",
        "in_project": False,
    }
    assert resolve("escape/not-there/yet", proj)["path"] == f"{outside}/not-there/yet"
    assert resolve("file-link", proj) == {
        "raw": "file-link",
        "path": f"{outside}/secret",
        "in_project": False,
    }
    # `..` after a symlink climbs from where the link points, as the kernel does
    assert resolve("escape/..", proj)["path"] == str(outside.parent)


def test_a_relative_symlink_inside_the_project_stays_inside(proj: Path) -> None:
    (proj / "real").mkdir()
    (proj / "alias").symlink_to("real")
    assert resolve("alias/x", proj) == {"raw": "alias/x", "path": f"{proj}/real/x", "in_project": True}


def test_a_symlink_into_the_project_is_inside(proj: Path, tmp_path: Path) -> None:
    (tmp_path / "door").symlink_to(proj)
    assert resolve(str(tmp_path / "door" / "a"), proj) == {
        "raw": str(tmp_path / "door" / "a"),
        "path": f"{proj}/a",
        "in_project": True,
    }


def test_a_symlinked_project_dir_is_resolved_first(proj: Path, tmp_path: Path) -> None:
    link = tmp_path / "proj-link"
    link.symlink_to(proj)
    result = resolve_path("a", home=HOME, base_dir=str(link), project_dir=str(link))
    assert result == {"raw": "a", "path": f"{proj}/a", "in_project": True}
    assert resolve_path(f"{proj}/b", home=HOME, base_dir="/", project_dir=str(link))["in_project"] is True


def test_a_symlink_loop_does_not_hang_or_raise(proj: Path) -> None:
    (proj / "loop").symlink_to("loop")
    assert resolve("loop/x", proj)["path"].startswith(str(proj))


def test_odd_input_does_not_raise(proj: Path) -> None:
    assert resolve("a\x00b", proj)["path"] == f"{proj}/a\x00b"
    assert resolve("x" * 5000, proj)["path"] == f"{proj}/{'x' * 5000}"


def test_the_memoised_realpath_agrees_with_os_path_realpath(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "a" / "b" / "c").mkdir(parents=True)
    (root / "lb").symlink_to(root / "a" / "b")
    (root / "a" / "b" / "up").symlink_to("../..")
    (root / "a" / "b" / "rel").symlink_to("c/../../x")
    (root / "abs").symlink_to("/")
    names = ["a", "b", "c", "lb", "up", "rel", "abs", "..", ".", "", "nx", "x"]
    rng = random.Random(7)
    memo: dict[str, str] = {}
    for _ in range(3000):
        path = str(root) + "/" + "/".join(rng.choice(names) for _ in range(rng.randint(0, 6)))
        assert _realpath_memo(path, memo) == os.path.realpath(path), path
        assert _realpath_memo(path, {}) == os.path.realpath(path), path


def test_the_resolver_shares_work_between_paths(proj: Path) -> None:
    resolver = PathResolver(home=HOME, project_dir=str(proj))
    assert resolver.resolve("a", str(proj)) == {"raw": "a", "path": f"{proj}/a", "in_project": True}
    assert resolver.resolve("~/a", str(proj), tilde=False)["path"] == f"{proj}/~/a"
    assert resolver.contains(str(proj)) and not resolver.contains(str(proj.parent))


# --------------------------------------------------------------------------------------------------
# tool_paths


def tool_spec(tool: str) -> ToolSpec:
    """The tool's entry in the first agent table that has it (Gemini's and Claude's names differ)."""
    return next((a.tools[tool] for a in AGENTS.values() if tool in a.tools), ToolSpec(ToolKind.OTHER))


def test_the_path_arguments_of_every_file_tool() -> None:
    tables = [AGENTS["gemini"].tools, AGENTS["claude"].tools]
    path_args = {name: spec.paths for table in tables for name, spec in table.items() if spec.paths}
    assert path_args == {
        "read_file": (("file_path", "read"),),
        "read_many_files": (("include", "read"), ("paths", "read")),
        "write_file": (("file_path", "write"),),
        "replace": (("file_path", "write"),),
        "list_directory": (("dir_path", "read"),),
        "glob": (("dir_path", "read"), ("pattern", "read")),
        "grep_search": (("dir_path", "read"), ("include_pattern", "read"), ("include", "read")),
        "search_file_content": (("dir_path", "read"), ("path", "read"), ("include", "read")),
        "Read": (("file_path", "read"),),
        "NotebookRead": (("notebook_path", "read"),),
        "Write": (("file_path", "write"),),
        "Edit": (("file_path", "write"),),
        "MultiEdit": (("file_path", "write"),),
        "NotebookEdit": (("notebook_path", "write"),),
        "Glob": (("path", "read"), ("pattern", "read")),
        "Grep": (("path", "read"), ("glob", "read")),
        "LS": (("path", "read"),),
    }


def paths(tool: str, tool_input: dict[str, Any], proj: Path) -> list[dict[str, Any]]:
    return tool_paths(tool_spec(tool), tool_input, home=HOME, base_dir=str(proj), project_dir=str(proj))


def entry(arg: str, raw: str, path: str, in_project: bool, access: str) -> dict[str, Any]:
    return {"arg": arg, "raw": raw, "path": path, "in_project": in_project, "access": access}


@pytest.mark.parametrize(
    ("tool", "arg", "access"),
    [
        ("read_file", "file_path", "read"),
        ("write_file", "file_path", "write"),
        ("replace", "file_path", "write"),
        ("list_directory", "dir_path", "read"),
        ("glob", "dir_path", "read"),
        ("grep_search", "dir_path", "read"),
        ("Read", "file_path", "read"),
        ("Write", "file_path", "write"),
        ("Edit", "file_path", "write"),
        ("MultiEdit", "file_path", "write"),
        ("NotebookEdit", "notebook_path", "write"),
        ("Glob", "path", "read"),
        ("Grep", "path", "read"),
        ("LS", "path", "read"),
    ],
)
def test_each_tool_reports_its_path(proj: Path, tool: str, arg: str, access: str) -> None:
    tool_input = {arg: "../.env", "content": "x", "old_string": "a", "new_string": "b"}
    listed = {"op": "list"} if tool in ("list_directory", "LS") else {}  # a listing tool lists names (pkgsrc50)
    assert paths(tool, tool_input, proj) == [{**entry(arg, "../.env", f"{proj.parent}/.env", False, access), **listed}]


def test_read_many_files_resolves_every_string_element(proj: Path) -> None:
    tool_input = {
        "include": ["src/**/*.py", 7, None, "~/.aws/credentials"],
        "paths": "README.md",
        "exclude": ["x"],
    }
    assert paths("read_many_files", tool_input, proj) == [
        entry("include", "src/**/*.py", f"{proj}/src/**/*.py", True, "read"),
        entry("include", "~/.aws/credentials", f"{HOME}/.aws/credentials", False, "read"),
        entry("paths", "README.md", f"{proj}/README.md", True, "read"),
    ]


def test_a_glob_pattern_is_relative_to_its_directory(proj: Path) -> None:
    assert paths("glob", {"pattern": "**/*.ts", "dir_path": "/etc"}, proj) == [
        entry("dir_path", "/etc", os.path.realpath("/etc"), False, "read"),
        entry("pattern", "**/*.ts", f"{os.path.realpath('/etc')}/**/*.ts", False, "read"),
    ]
    assert paths("Glob", {"pattern": "../../**/.env"}, proj) == [
        entry("pattern", "../../**/.env", f"{proj.parent.parent}/**/.env", False, "read"),
    ]
    assert paths("Glob", {"pattern": "src/*.py", "path": "pkg"}, proj) == [
        entry("path", "pkg", f"{proj}/pkg", True, "read"),
        entry("pattern", "src/*.py", f"{proj}/pkg/src/*.py", True, "read"),
    ]


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("read_file", {}),
        ("read_file", {"file_path": None}),
        ("read_file", {"file_path": 3}),
        ("read_file", {"path": "a"}),  # not this tool's argument
        ("Grep", {"pattern": "TODO"}),  # Grep's pattern is a regex, not a path
        ("read_many_files", {"include": []}),
        ("run_shell_command", {"command": "cat a"}),
        ("unknown_tool", {"file_path": "a"}),
    ],
)
def test_missing_or_unknown_arguments_are_skipped(proj: Path, tool: str, tool_input: dict[str, Any]) -> None:
    assert paths(tool, tool_input, proj) == []


# --------------------------------------------------------------------------------------------------
# The enricher


def event(tool: ToolCall | None, proj: Path, facts: dict[str, Any] | None = None) -> NormalisedEvent:
    return NormalisedEvent(
        client="claude",
        event=Event.BEFORE_TOOL,
        payload={},
        tool=tool,
        session_id="s",
        cwd="/",
        project_dir=str(proj),
        caller=Caller(uid=1000, gid=1000, pid=1),
        facts={"home": HOME} if facts is None else facts,
    )


def test_enrich_paths_adds_the_paths(proj: Path) -> None:
    tool = ToolCall("Write", ToolKind.WRITE, {"file_path": "~/.bashrc", "content": "x"}, spec=tool_spec("Write"))
    enriched = enrich_paths(event(tool, proj))
    assert enriched.facts == {
        "home": HOME,
        "paths": [entry("file_path", "~/.bashrc", f"{HOME}/.bashrc", False, "write")],
    }
    assert enriched.input_document()["paths"] == enriched.facts["paths"]


def test_enrich_paths_resolves_a_relative_path_against_the_project_and_the_calls_cwd(proj: Path) -> None:
    """Gemini and Qwen take a relative path from the workspace root, Claude, Codex, Copilot and OpenCode from
    the session's directory: where the two differ, both are judged."""
    tool = ToolCall("read_file", ToolKind.READ, {"file_path": "a"}, spec=tool_spec("read_file"))
    assert enrich_paths(event(tool, proj)).facts["paths"] == [
        entry("file_path", "a", f"{proj}/a", True, "read"),
        entry("file_path", "a", "/a", False, "read"),
    ]
    absolute = ToolCall("read_file", ToolKind.READ, {"file_path": f"{proj}/a"}, spec=tool_spec("read_file"))
    assert enrich_paths(event(absolute, proj)).facts["paths"] == [
        entry("file_path", f"{proj}/a", f"{proj}/a", True, "read")
    ]  # once


def test_enrich_paths_falls_back_to_this_process_home(proj: Path) -> None:
    tool = ToolCall("Read", ToolKind.READ, {"file_path": "~/x"}, spec=tool_spec("Read"))
    enriched = enrich_paths(event(tool, proj, facts={}))
    assert enriched.facts["paths"][0]["path"] == os.path.realpath(os.path.expanduser("~/x"))


@pytest.mark.parametrize(
    "tool",
    [
        None,
        ToolCall("run_shell_command", ToolKind.SHELL, {"command": "cat a"}, spec=tool_spec("run_shell_command")),
        ToolCall("mcp_x", ToolKind.MCP, {}, spec=tool_spec("mcp_x")),
    ],
)
def test_enrich_paths_leaves_other_events_alone(proj: Path, tool: ToolCall | None) -> None:
    before = event(tool, proj)
    assert enrich_paths(before) is before


# --------------------------------------------------------------------------------------------------
# Canonical spelling on file systems that ignore case
#
# This machine's kernel has no case-insensitive file system to mount (no casefold tmpfs/ext4, no vfat):
# whether a file system folds case is learnt by looking a name up in the other case (checked here on the real
# case-sensitive one); what follows from folding is checked by recording that the test's file system folds.


def test_a_case_sensitive_file_system_is_learnt_as_such(proj: Path) -> None:
    from hookd.enrich import paths as paths_module

    (proj / "Makefile").write_text("")
    info = os.lstat(proj / "Makefile")
    paths_module._FOLD_CACHE.pop(info.st_dev, None)
    assert paths_module._learn_fold(info, str(proj), "Makefile") is False
    assert paths_module._FOLD_CACHE[info.st_dev] is False
    (proj / ".Git").mkdir()  # on a case-sensitive file system .Git is another directory than .git
    assert resolve(".Git/hooks", proj)["path"] == f"{proj}/.Git/hooks"


@pytest.fixture
def folding(proj: Path) -> Any:
    """The test's file system taken to fold case (as APFS and NTFS do by default)."""
    from hookd.enrich import paths as paths_module

    device = os.stat(proj).st_dev
    before = paths_module._FOLD_CACHE.get(device)
    paths_module._FOLD_CACHE[device] = True
    yield paths_module
    if before is None:
        paths_module._FOLD_CACHE.pop(device, None)
    else:
        paths_module._FOLD_CACHE[device] = before


def test_where_case_folds_a_name_is_spelled_as_the_directory_holds_it(proj: Path, folding: Any) -> None:
    (proj / ".git" / "hooks").mkdir(parents=True)
    (proj / "README.md").write_text("")
    info = os.lstat(proj / "README.md")
    assert folding._spelled_on_disk(str(proj), "readme.MD", info) == "README.md"
    assert resolve("README.md", proj)["path"] == f"{proj}/README.md"
    # a missing name is folded, so `.Git/hooks` and `~/.AWS/credentials` match the rules written for `.git`, `.aws`
    assert resolve("src/.Git/HOOKS/pre-commit", proj)["path"] == f"{proj}/src/.git/hooks/pre-commit"
    assert resolve(".AWS/Credentials", proj)["path"] == f"{proj}/.aws/credentials"


def test_where_case_folds_a_large_directory_falls_back_to_the_folded_name(
    proj: Path, folding: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(5):
        (proj / f"f{i}").write_text("")
    (proj / "Zed").write_text("")
    monkeypatch.setattr(folding, "MAX_DIR_SCAN", 2)
    info = os.lstat(proj / "Zed")
    assert folding._spelled_on_disk(str(proj), "Zed", info) in ("Zed", "zed")  # found early, or folded


def test_the_platform_default_decides_a_file_system_not_yet_learnt(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hookd.enrich import paths as paths_module

    monkeypatch.setattr(paths_module, "_FOLD_CACHE", {})
    monkeypatch.setattr(paths_module, "FOLD_DEFAULT", True)  # macOS
    devices = {str(proj): -999}  # a file system not learnt yet
    assert paths_module._component(str(proj), ".SSH", {}, devices, True, None) == f"{proj}/.ssh"
    # what a name with letters shows about a file system wins over the default: this one is case-sensitive
    assert paths_module._realpath_memo(f"{proj}/.SSH/Keys", {}) == f"{proj}/.SSH/Keys"
    assert paths_module._FOLD_CACHE[os.stat(proj).st_dev] is False


# --------------------------------------------------------------------------------------------------
# Globs, expanded against the file system, bounded


@pytest.fixture
def tree(proj: Path) -> Path:
    for name in ("config/prod.env", "config/app.toml", "config/.hidden.env", ".aws/credentials", "src/a/b/c.py"):
        (proj / name).parent.mkdir(parents=True, exist_ok=True)
        (proj / name).write_text("")
    return proj


def rel(found: list[str], root: Path) -> list[str]:
    return sorted(p[len(str(root)) + 1 :] for p in found)


def test_globs_in_any_component(tree: Path) -> None:
    from hookd.enrich.paths import expand_glob

    assert rel(expand_glob(f"{tree}/.a?s/credentials")[0], tree) == [".aws/credentials"]
    assert rel(expand_glob(f"{tree}/config/*")[0], tree) == ["config/app.toml", "config/prod.env"]
    assert rel(expand_glob(f"{tree}/config/*", hidden=True)[0], tree) == [
        "config/.hidden.env", "config/app.toml", "config/prod.env",
    ]  # fmt: skip
    assert rel(expand_glob(f"{tree}/*/[p]rod.e[!x]v")[0], tree) == ["config/prod.env"]
    assert rel(expand_glob(f"{tree}/**/*.py")[0], tree) == ["src/a/b/c.py"]
    assert rel(expand_glob(f"{tree}/config/*.{{env,toml}}")[0], tree) == ["config/app.toml", "config/prod.env"]
    assert expand_glob(f"{tree}/nothing/*") == ([], True)


def test_globs_stop_at_their_caps_and_say_so(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hookd.enrich import paths as paths_module

    monkeypatch.setattr(paths_module, "MAX_GLOB_MATCHES", 1)
    found, complete = paths_module.expand_glob(f"{tree}/config/*")
    assert len(found) == 1 and not complete
    monkeypatch.setattr(paths_module, "MAX_GLOB_MATCHES", 64)
    monkeypatch.setattr(paths_module, "MAX_GLOB_ENTRIES", 3)
    assert paths_module.expand_glob(f"{tree}/**/*.py")[1] is False
    assert paths_module.expand_braces("{a,b}{c,d}{e,f}", limit=4) is None


def test_glob_matching_folds_case_where_the_file_system_does(tree: Path, folding: Any) -> None:
    from hookd.enrich.paths import expand_glob

    assert rel(expand_glob(f"{tree}/.A?S/CREDENTIALS")[0], tree) == [".aws/CREDENTIALS"]
    assert rel(expand_glob(f"{tree}/config/PROD.*")[0], tree) == ["config/prod.env"]


def test_a_glob_in_a_shell_operand_adds_what_it_matches(tree: Path) -> None:
    from hookd.enrich.shell import parse_shell

    shell = parse_shell("cat config/* && cat .a?s/cred*", home=HOME, base_dir=str(tree), project_dir=str(tree))
    cat, cat2 = shell["commands"]
    assert [(a["path"], a.get("glob")) for a in cat["args"]] == [
        (f"{tree}/config/*", None),
        (f"{tree}/config/app.toml", "config/*"),
        (f"{tree}/config/prod.env", "config/*"),
    ]
    assert [a["path"] for a in cat2["args"]] == [f"{tree}/.a?s/cred*", f"{tree}/.aws/credentials"]


def test_the_globs_of_one_event_share_one_budget(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command of thousands of globs costs what one event's budget allows, not thousands of expansions."""
    from hookd.enrich import paths as paths_module
    from hookd.enrich.shell import parse_shell

    monkeypatch.setattr(paths_module, "MAX_EVENT_GLOB_MATCHES", 3)
    shell = parse_shell("cat " + " ".join(["config/*"] * 50), home=HOME, base_dir=str(tree), project_dir=str(tree))
    assert sum(1 for a in shell["commands"][0]["args"] if a.get("glob")) == 3
    monkeypatch.setattr(paths_module, "MAX_EVENT_GLOB_MATCHES", 256)
    monkeypatch.setattr(paths_module, "MAX_EVENT_GLOB_ENTRIES", 5)
    resolver = paths_module.PathResolver(home=HOME, project_dir=str(tree))
    assert resolver.matches("config/*", str(tree))[1] is True  # 3 entries
    assert resolver.matches("config/*", str(tree))[1] is False  # the event's budget is spent


def test_a_glob_met_again_in_one_event_is_read_once_and_charged_twice(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command's glob is expanded for its argument and again for its effect: the second time the directory
    is not read again, and the event's budget goes down as if it were (what a repeated glob may add stays
    bounded); a file made in between is seen by the next event's resolver, never kept from this one."""
    from hookd.enrich import paths as paths_module

    reads: list[str] = []
    scandir = os.scandir

    def counted(path: str) -> Any:
        reads.append(path)
        return scandir(path)

    monkeypatch.setattr(paths_module.os, "scandir", counted)
    resolver = paths_module.PathResolver(home=HOME, project_dir=str(tree))
    first = resolver.matches("config/*", str(tree))
    left = (resolver._globs.entries, resolver._globs.matches)
    assert resolver.matches("config/*", str(tree)) == first
    assert len(reads) == 1
    spent = (paths_module.MAX_EVENT_GLOB_ENTRIES - left[0], paths_module.MAX_EVENT_GLOB_MATCHES - left[1])
    assert (resolver._globs.entries, resolver._globs.matches) == (left[0] - spent[0], left[1] - spent[1])
    (tree / "config" / "new.env").write_text("")
    again = paths_module.PathResolver(home=HOME, project_dir=str(tree)).matches("config/*", str(tree))
    assert rel(again[0], tree) == ["config/app.toml", "config/new.env", "config/prod.env"]


@pytest.mark.parametrize(
    ("raw", "seen"),
    [
        ("/proc/self/cwd/.env", "{cwd}/.env"),
        ("/proc/thread-self/cwd/../.bashrc", "{home}/.bashrc"),
        ("/dev/fd/../cwd/x", "{cwd}/x"),
        ("/proc/self/root/etc/hosts", "/etc/hosts"),
        ("/proc/self/environ", "/proc/self/environ"),
        ("/dev/fd/2", "/proc/self/fd/2"),
    ],
)
def test_the_callers_own_proc_entries_are_its_own_not_hookds(tmp_path: Path, raw: str, seen: str) -> None:
    """`/proc/self` names the process that looks: resolved in hookd it would be hookd's cwd and root."""
    home = (tmp_path / "home").resolve()
    cwd = home / "proj"
    cwd.mkdir(parents=True)
    resolver = PathResolver(home=str(home), project_dir=str(cwd))
    assert resolver.absolute(raw, "") == seen.format(cwd=cwd, home=home)


# Tool-side spelling invariance (tests/unit/policy/test_tool_spelling_invariance.py): the same file named by a glob.


def test_a_directory_a_read_glob_matches_is_read_whole(tmp_path: Path) -> None:
    """`read_many_files` reads every file below a directory it is given; one a glob matches (`~/.config/g[h]`)
    is read the same way."""
    home = tmp_path / "home"
    (home / ".config" / "gh").mkdir(parents=True)
    (home / ".config" / "gh" / "hosts.yml").write_text("oauth_token: x\n")
    spec = AGENTS["gemini"].tools["read_many_files"]
    for given in ("~/.config/gh", "~/.config/g[h]"):
        found = tool_paths(spec, {"paths": [given]}, home=str(home), base_dir=str(tmp_path), project_dir=str(tmp_path))
        assert str(home / ".config/gh/hosts.yml") in [e["path"] for e in found], given


def test_a_glob_tools_pattern_with_a_glob_in_a_directory_lists_its_matches(tmp_path: Path) -> None:
    """`~/.ss[h]/*` shows no `.ssh` in its text: what it lists is what it matches on disk."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("KEY")
    spec = AGENTS["droid"].tools["Glob"]
    given = {"patterns": [f"{home}/.ss[h]/*"], "folder": str(tmp_path)}
    found = tool_paths(spec, given, home=str(home), base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert str(home / ".ssh/id_ed25519") in [e["path"] for e in found]
