"""Per-argument facts of `input.shell` (docs/policies.md, "Facts about each argument"). Owned by the policies
engineer.

Computed once per decision in linear time, so that a policy reads a field where it would otherwise call
helper functions for every path (regorus runs each call in 5-10 µs and caches nothing across
evaluations: a recursive delete of 250 paths cost 25-47 ms of Rego). Each argument of `input.shell.commands[]
.args` gains:

* `tree`: the path a recursive command given this word acts on: `path` with a trailing `/*` or `/.*`
  removed (`dir/*` empties `dir`; `/*` is `/`);
* `unresolved`: the word still holds `$` or a backtick, so its value is only known when the shell runs;
* `class`: where `tree` lies, the first that holds of
  `root` (`/`), `home` (the caller's home or an ancestor of it), `system` (not in the project, and a
  system directory or under a system prefix: SYSTEM_DIRS, SYSTEM_PREFIXES), `project-root` (the project
  directory itself), `outside` (not in the project, resolved and not scratch space; or unresolved with a
  fixed part that already leaves the project, `/tmp/$X`), `unresolved` (unresolved, and may lead back into
  the project), `project` (in the project), `scratch` (below `/tmp/`, `/var/tmp/` or `/private/tmp/`,
  hookd's own `/tmp/hookd-*` aside; or below one of the home's cache directories, `~/.cache/pip`: the
  `effects/data/caches.json`).

`input.shell.facts` is FACTS_VERSION when the arguments carry these fields: a policy given a document
without them (an input written by hand, a decision recorded before them) computes them itself.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FACTS_VERSION = 1

SYSTEM_DIRS = frozenset(
    (
        "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt", "/nix",
        "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv", "/sys", "/tmp", "/usr", "/var",
        "/Applications", "/Library", "/System", "/Users", "/Volumes", "/private", "/cores",
    )
)  # fmt: skip
SYSTEM_PREFIXES = (
    "/bin/", "/boot/", "/dev/", "/etc/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/proc/", "/sbin/", "/sys/",
    "/usr/", "/System/",
)  # fmt: skip
SCRATCH_PREFIXES = ("/tmp/", "/var/tmp/", "/private/tmp/")
CLASSES = ("root", "home", "system", "project-root", "outside", "unresolved", "project", "scratch")


def tree_of(path: str) -> str:
    """What a recursive command given `path` acts on: `dir/*` and `dir/.*` empty `dir`."""
    if path in ("/*", "/.*"):
        return "/"
    if path.endswith("/*"):
        return path[:-2]
    if path.endswith("/.*"):
        return path[:-3]
    return path


def is_unresolved(raw: str) -> bool:
    return "$" in raw or "`" in raw


def under(path: str, directory: str) -> bool:
    """`path` is `directory` or below it ("" is no directory, "/" holds every absolute path)."""
    if path == directory:
        return True
    if directory == "/":
        return path.startswith("/")
    return directory != "" and path.startswith(directory + "/")


def is_system(path: str) -> bool:
    return path in SYSTEM_DIRS or path.startswith(SYSTEM_PREFIXES)


def is_scratch(path: str) -> bool:
    if path.startswith("/tmp/hookd-"):
        return False
    return any(path.startswith(p) and len(path) > len(p) for p in SCRATCH_PREFIXES)


def in_home_cache(path: str, home: str | None) -> bool:
    """Below a directory of the home that holds only caches (`~/.cache/pip`, `~/.gradle/caches`: caches.json,
    with its sources): what is there a tool downloads or builds again, so it is scratch."""
    if not home or not path.startswith(home + "/"):
        return False
    rest = path[len(home) + 1 :]
    return any(rest == cache or rest.startswith(cache + "/") for cache in _home_caches())


@functools.cache
def _home_caches() -> tuple[str, ...]:
    data = json.loads((Path(__file__).parent / "effects" / "data" / "caches.json").read_text(encoding="utf-8"))
    return tuple(str(cache) for cache in data["below_home"])


def static_dir(raw: str) -> str | None:
    """The directory part of the text before its expansion (`/tmp/x$Y` -> `/tmp`), None for a relative word.
    As the policies' regex `[$`].*$` cuts it: the first `$` or backtick with no newline after it."""
    cut = len(raw)
    start = raw.rfind("\n") + 1
    for i in range(start, len(raw)):
        if raw[i] in "$`":
            cut = i
            break
    fixed = raw[:cut]
    if fixed.startswith("/"):
        directory = fixed.rsplit("/", 1)[0]
        if directory:
            return directory
    return "/" if raw.startswith("/") else None


def arg_class(arg: Mapping[str, Any], tree: str, *, home: str | None, project: str) -> str:
    """The `class` of one argument (see the module docstring); `home` and `project` without a trailing `/`,
    `home` None when the input has none."""
    in_project = arg.get("in_project") is True
    raw = str(arg.get("raw", ""))
    if arg.get("fresh") is True and tree not in ("/", home, project):
        return "scratch"  # made by `mktemp` earlier on the line (hookd.enrich.shell.build)
    if tree == "/":
        return "root"
    if home and under(home, tree):
        return "home"
    if not in_project and is_system(tree):
        return "system"
    if tree == project:
        return "project-root"
    unresolved = is_unresolved(raw)
    if not in_project and not unresolved and not is_scratch(tree) and not in_home_cache(tree, home):
        return "outside"
    if unresolved:
        fixed = static_dir(raw)
        if fixed is not None and not under(fixed, project) and not under(project, fixed):
            return "outside"
        return "unresolved"
    return "project" if in_project else "scratch"


def add_arg_facts(shell: dict[str, Any], *, home: object, project_dir: str) -> dict[str, Any]:
    """Adds `tree`, `unresolved` and `class` to every argument of `shell`'s commands, and `facts`; `home` is
    the input's `home` (as the policies read it), `project_dir` its `project_dir`. Returns `shell`."""
    home_dir = home.removesuffix("/") if isinstance(home, str) else None
    project = project_dir.removesuffix("/")
    for command in shell.get("commands", ()):
        for arg in command.get("args", ()):
            path = arg.get("path")
            tree = tree_of(path) if isinstance(path, str) else ""
            arg["tree"] = tree
            arg["unresolved"] = is_unresolved(str(arg.get("raw", "")))
            arg["class"] = arg_class(arg, tree, home=home_dir, project=project)
    shell["facts"] = FACTS_VERSION
    return shell
