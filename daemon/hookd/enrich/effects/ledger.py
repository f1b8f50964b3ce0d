"""What one command line has done so far, and the effects it records (docs/policies.md, "The effect model").

The `Ledger` is the memory the effect model's parts share: the effect list, the files the line wrote,
downloaded or decoded (and their text when known), what the command before listed or wrote to its stdout.
`add` builds one effect; the parts (operands, code, git, tar, fetches) all record through it.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.enrich.effects.words import (
    XARGS_INPUT,
    _dynamic,
    _fixed_place,
)
from hookd.enrich.effects.worktree import Readings
from hookd.enrich.facts import arg_class, tree_of, under
from hookd.enrich.paths import has_glob

Place = Callable[[str], dict[str, Any]]


@dataclass(slots=True)
class Followups:
    """What a command runs besides itself: shell scripts (parsed one level deeper) and code in another language."""

    scripts: list[str] = field(default_factory=list)
    code: tuple[str, str] | None = None  # (language, text)
    origin: str = "unknown"  # what its standard output is: text, fetch, decode, unknown


@dataclass(slots=True)
class CommandView:
    """One command as the builder has it: the peeled argv, its env assignments, redirects (placed), privileges."""

    name: str
    argv: list[str]
    env: Mapping[str, str]
    redirects: list[dict[str, Any]]
    sudo: bool
    variables: Mapping[str, str]
    stdin: str  # what its stdin is: text, fetch, decode, unknown, none
    stdin_text: str | None
    root: bool = False  # it runs with other privileges, its own or inherited (`sudo bash -c '…'`)
    substituted: str = ""  # what its substitutions print, when fetched or decoded (`bash <(curl …)`): fetch, decode
    peeled: tuple[str, ...] = ()  # the words of the wrappers peeled off it (`strace -o '|CMD'` of `strace … true`)
    fed: tuple[str, ...] = ()  # the words of the commands before it in its pipeline (`pgrep -f x | xargs kill`)
    built: Mapping[str, str] = field(default_factory=dict)  # variables set at run time, as written (`p=$(pgrep x)`)
    handed: frozenset[str] = frozenset()  # words it hands a command it runs (`find -exec CMD`): judged at CMD
    literal: frozenset[str] = frozenset()  # words whose `$` and backticks were quoted (`eval 'echo "$x"'`): text


_DESCRIPTOR = re.compile(r"/proc/self/fd/(\d+)")  # `/dev/fd/N` as the paths module spells it (paths._as_caller)


def prints_nothing(view: CommandView) -> bool:
    """A command whose standard output is empty: none (`> f`), `:`, `true`, `false`, an echo or printf of no
    text (`printf '' > f`), `cat /dev/null`."""
    if view.name in ("echo", "printf"):
        return view.stdin_text == ""
    return not view.argv or view.name in (":", "true", "false") or view.argv == ["cat", "/dev/null"]


class Ledger:
    __slots__ = (
        "branch", "contents", "descriptors", "effects", "emptied", "git_config", "home", "included", "listed", "loaded",
        "moved",
        "previous", "printed", "printing", "produced", "project", "read_listing", "readings", "selected", "spared",
        "stash_back", "stashed",
        "tree_touched", "trees", "unordered",
    )  # fmt: skip

    def __init__(self, *, home: str, project: str) -> None:
        self.home = home.rstrip("/") or "/"
        self.project = project.rstrip("/") or "/"
        self.effects: list[dict[str, Any]] = []
        self.branch: str | None = None  # the branch the line switched to ("" unknown; None: none, HEAD's)
        self.produced: dict[str, str] = {}  # path -> how the line made it: write, fetch, decode
        self.contents: dict[str, str] = {}  # path -> its text, when the line wrote known text
        self.emptied: set[str] = set()  # of `produced`, what the line made empty (`mkdir d`): no code of its in it
        self.loaded: set[str] = set()  # the files the line made that a command loaded: their commands walked once
        self.listed: list[dict[str, Any]] = []  # what the command being judged lists (find, ls, git ls-files)
        self.previous: list[dict[str, Any]] = []  # what the command before it listed: the names xargs reads
        self.trees: list[dict[str, Any]] = []  # what the command before it read whole and wrote to its stdout
        self.read_listing: list[dict[str, Any]] = []  # what a listing fed to `read` (`find … | while read f`)
        self.moved: dict[str, Mapping[str, Any]] = {}  # destination -> the place moved there (`mv ~/x /tmp/y`)
        self.printing: list[dict[str, Any]] = []  # the credentials the command being judged prints (`gh auth token`)
        self.printed: list[dict[str, Any]] = []  # those the command before it printed: what a pipe hands on
        self.stashed = False  # a `git stash` earlier on the line put the uncommitted changes aside
        self.stash_back = False  # a git command earlier on the line named a stash (`stash pop`, `stash@{0}`)
        self.tree_touched = False  # a command earlier on the line may have changed a repository's index or files
        self.unordered = False  # the commands being walked may run again, or alongside others (loops, `&`, `|`)
        self.spared: list[dict[str, Any]] = []  # discards found to lose nothing, walked while `unordered`
        self.readings = Readings()  # what the line's discards read of their repositories: once, and bounded
        self.git_config: dict[str, str] = {}  # `git config alias.x VALUE` earlier on the line: git's later commands
        self.included: list[str] = []  # `git config include.path F` earlier on the line: F's aliases, git's later
        self.descriptors: dict[int, Mapping[str, Any]] = {}  # fd -> the file a redirect opened on it (`exec 7<F`)
        self.selected: dict[str, str] = {}  # program -> the server an earlier command chose (`docker context use X`)

    def bind_descriptors(self, redirects: list[Mapping[str, Any]], *, lasting: bool) -> dict[int, Mapping[str, Any]]:
        """The files a command's numbered redirects open (`7<F`, `3<>F`; `7<&-` closes 7), bound for the paths
        that name a descriptor (`/dev/fd/7`, `/proc/self/fd/7`, proc_pid_fd(5)): the binding to keep after the
        command, which is the new one for `exec 7<F` (a command of redirects only), the old one otherwise."""
        before = dict(self.descriptors)
        for redirect in redirects:
            fd = redirect.get("fd")
            if isinstance(fd, int) and redirect.get("path"):
                self.descriptors[fd] = {"raw": redirect.get("target"), "path": redirect["path"],
                                        "in_project": redirect.get("in_project")}  # fmt: skip
            elif isinstance(fd, int) and redirect.get("target") == "-":
                self.descriptors.pop(fd, None)
        return dict(self.descriptors) if lasting else before

    def add(
        self,
        op: str,
        placed: Mapping[str, Any] | None,
        program: str,
        *,
        recursive: bool = False,
        to: Mapping[str, Any] | None = None,
        code: Mapping[str, str] | None = None,
        url: str = "",
        known: bool | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        if placed and self.descriptors and (found := _DESCRIPTOR.fullmatch(str(placed.get("path") or ""))):
            placed = self.descriptors.get(int(found.group(1)), placed)  # `truncate -s 0 /dev/fd/7`: the file on 7
        raw = str(placed.get("raw", "")) if placed else ""
        if XARGS_INPUT in raw and (self.previous or self.read_listing) and op != "list" and _as_listed(raw):
            return self._from_listing(op, program, list(placed.get("selects") or ()) if placed else [])
        dynamic = bool(placed) and _dynamic(raw)
        path = "" if not placed or dynamic else str(placed.get("path") or "")
        tree = tree_of(path) if recursive and path else path
        effect: dict[str, Any] = {
            "op": op,
            "path": path,
            "known": (not dynamic) if known is None else known,
            "recursive": recursive,
            "to": "" if not to or _dynamic(str(to.get("raw", ""))) else str(to.get("path") or ""),
            "program": program,
            "via": "shell",
            "class": self.classify(placed, tree)
            if placed
            else "unresolved"
            if op in ("exec",) and known is False
            else "",
        }
        if placed:
            effect["raw"] = raw
            if placed.get("after_cd") is True:
                effect["after_cd"] = True
            if dynamic:
                effect["fixed"] = _fixed_place(raw, str(placed.get("path") or ""), self.project)
                if placed.get("installed"):  # what a search-path lookup finds (shell/outputs.looked_up)
                    effect["installed"] = placed["installed"]
        if code is not None:
            effect["code"] = dict(code)
        if url:
            effect["url"] = url
        if op == "delete":
            self._what_is_lost(effect, raw, extra)
        effect.update(extra)
        self.effects.append(effect)
        for match in placed.get("matches", ()) if placed and op != "list" else ():  # what a glob matches now
            inside = {"raw": match, "path": match, "in_project": under(match, self.project)}
            self.effects.append(
                {**effect, "path": match, "raw": match, "glob": raw, "class": self.classify(inside, match)}
            )
        if op == "list" and placed:
            self.listed.append(dict(placed))
        if op == "delete" and path and self.moved:
            self._moved_away(path, recursive, program)
        return effect

    def _what_is_lost(self, effect: dict[str, Any], raw: str, extra: Mapping[str, Any]) -> None:
        path = str(effect["path"])
        if sweeps(path):
            effect["selected"] = True  # `rm ~/Projects/*/*.py`, `shred -u ~/Documents/*`: what the glob selects
        elif path and not effect["recursive"] and not has_glob(path) and self._holds_nothing(path, raw, extra):
            effect["holds"] = False  # `rm ~/.local/bin/x` (a link), `curl -o ~/a.tgz … && rm ~/a.tgz`: nothing lost

    def _holds_nothing(self, path: str, raw: str, extra: Mapping[str, Any]) -> bool:
        """A delete of `path` loses nothing that was there before the line: a file the line made (an emptying
        overwrite records the write that makes it first, so only the disk tells for that), one that is there and
        empty or a directory, or the link the word names (`path` is its target, which an emptying overwrite
        writes through and `rm` leaves)."""
        if extra.get("emptied"):
            return holds_nothing(path)
        return bool(self.made(path)) or holds_nothing(raw if raw.startswith("/") else path)

    def touch_tree(self) -> None:
        """A command that may change a repository's index or files: a discard judged on disk after it keeps its
        effects, and so does one it may run before (`while …; do git reset --hard; git stash pop; done`)."""
        self.tree_touched = True
        self.effects.extend(self.spared)
        self.spared.clear()

    def next_command(self, view: CommandView) -> None:
        """What the command before listed is what this one reads; a runner that hands the names it reads to the
        command it spawns (`ls -d ~/D/* | parallel rm -rf`: XARGS_INPUT among its handed words) lists them on."""
        self.previous, self.listed = self.listed, list(self.listed) if XARGS_INPUT in view.handed else []

    def _moved_away(self, path: str, recursive: bool, program: str) -> None:
        """A delete of what the line moved there before (`mv ~/Documents /tmp/d && rm -rf /tmp/d`): the moved
        place is deleted, as the same delete (`moved_to`)."""
        inside = path.rstrip("/") + "/"
        for destination in [d for d in self.moved if d == path or (recursive and d.startswith(inside))]:
            origin = self.moved.pop(destination)
            self.add("delete", origin, program, recursive=True, moved_to=destination)

    def _from_listing(self, op: str, program: str, selects: list[dict[str, Any]]) -> dict[str, Any]:
        """`find DIR … | xargs cat`: the names on stdin are what the command before listed, somewhere in DIR; each
        resolved where the reader runs (`selects`, the builder's: DIR there), and where the listing's words show
        what it prints, each file that matches on disk there. A name hookd cannot place is known at run time."""
        effect: dict[str, Any] = {}
        listing = self.previous or self.read_listing
        for k, placed in enumerate(listing):
            where = selects[k] if k < len(selects) else {"root": placed, "found": {}}
            root, found = where["root"], where["found"]
            effect = self.add(op, root or {"raw": f"$({placed.get('raw')})", "path": ""}, program, recursive=True,
                              from_stdin=True)  # fmt: skip
            if found is None:  # (as what xargs appends for a search: `$(find …)`, asked)
                self.add(op, {"raw": f"$({placed.get('stand_in')})", "path": ""}, program, from_stdin=True)
            for path in found.get("matches", ()) if found else ():
                self.add(op, {"raw": path, "path": path, "in_project": under(path, self.project)}, program,
                         from_stdin=True)  # fmt: skip
            if isinstance(placed.get("selects"), dict):  # a loop over a search: each file it selects (listings.py)
                self.add(op, placed["selects"], program)
        return effect

    def spawned(
        self, start: int, sweep: bool, as_root: str = "", image: str = "", mounts: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """The effects from `start` on are a spawned command's: a search's (`find ROOT -exec rm {} +` deletes
        what its tests select below ROOT, as -delete does), or a container's. One that runs as root (`as_root`,
        its engine: shell.runners) and changes the host's system files through a bind mount uses root's
        privileges there (`docker run -v /etc:/e alpine sh -c 'echo … >> /e/passwd'`). One given no command runs
        its `image`'s own entrypoint, code the line does not show: with a host directory beyond the project and
        scratch space bound in (`docker run -v "$HOME":/root img`), it may do anything there (unknown code)."""
        if sweep:
            selected(self.effects, start)
        changes = ("write", "delete", "chmod", "move", "link")
        if as_root and any(e["op"] in changes and e["class"] in ("system", "root") for e in self.effects[start:]):
            self.add("privilege", None, as_root)
        hosts = [self.home + h[1:] if h[:2] in ("~", "~/") else h for _, h in mounts] if image else []
        for host in [h for h in hosts if h.startswith("/")]:
            spot = {"raw": host, "path": host, "in_project": under(host, self.project)}
            if self.classify(spot, host) not in ("project", "project-root", "scratch"):
                self.add("exec", None, image, code={"lang": "image", "text": ""}, known=False, mounted=host)
                break

    def classify(self, placed: Mapping[str, Any], tree: str) -> str:
        return arg_class(placed, tree or str(placed.get("path") or ""), home=self.home, project=self.project)

    def produce(self, path: str, how: str) -> None:
        """The line made `path` (write, fetch, decode): what it holds is no longer known empty."""
        self.produced[path] = how
        self.emptied.discard(path)

    def made(self, path: str) -> str:
        if not path:
            return ""
        kind = self.produced.get(path)
        if kind is not None:
            return kind
        parent = path
        while "/" in parent.rstrip("/"):  # a file in a directory the line fetched (`git clone … && ./r/x.sh`)
            parent = parent.rsplit("/", 1)[0]
            if self.produced.get(parent or "/") == "fetch":
                return "fetch"
        return ""


def _as_listed(raw: str) -> bool:
    """A word that is a name a listing printed, as printed (`{}`, `"$f"`, `./$f`, `$f.bak`: in its place, a suffix
    added); a word that puts it below another directory (`~/.{}`, `/tmp/$f`, `backup/$f`) names another place,
    known only when the shell runs (benign44: `ln -s … ~/.${f%.dot}` was the listed file itself)."""
    return raw.split(XARGS_INPUT, 1)[0].strip("\"'") in ("", "./")


def selected(effects: list[dict[str, Any]], start: int, stand_ins: set[str] | None = None) -> None:
    """The effects of what a search runs on each file it finds (`find ROOT … -exec CMD {} +`, `fd -x`): a
    change is of what it selects; a read of its stand-in (`ROOT/**/PAT`) reads below ROOT, as
    `find ROOT | xargs cat` does (a recursive read of ROOT beside the stand-in's own). `stand_ins`: only
    the effects on these words (a command handed a search's names by a substitution: `rm -r $(find d -name x)`)."""
    for effect in effects[start:]:
        if stand_ins is not None and effect.get("raw") not in stand_ins and effect.get("glob") not in stand_ins:
            continue
        if effect["op"] in ("delete", "chmod"):
            effect["selected"] = True
        elif effect["op"] in ("read", "copy") and has_glob(effect["path"]) and "glob" not in effect:
            root = effect["path"].split("/*", 1)[0].split("/?", 1)[0] or "/"
            effects.append({**effect, "path": root, "raw": root, "recursive": True, "selected": True})


_EVERYTHING = re.compile(r"[*?.]*\*[*?.]*")  # `*`, `.*`, `*.*`: every name of a directory


def sweeps(path: str) -> bool:
    """A glob that selects whatever a directory holds, as a search below its fixed part does: one whose pattern
    spans directories (`~/Projects/*/*.py`, `~/*/.env`) or whose last name is any name at all (`~/Documents/*`);
    not a name pattern of one directory (`~/.npm/_logs/*.log`, `notes-*.txt`)."""
    if not has_glob(path):
        return False
    *directories, last = path.split("/")
    return any(has_glob(d) for d in directories) or _EVERYTHING.fullmatch(last) is not None


def holds_nothing(path: str) -> bool:
    """`path` is there now and a delete or an emptying of it loses no bytes: a link (its target stays), an empty
    file, a directory (a delete that is not recursive removes none with anything in it). A path that is not there
    is not known empty: the line may make it first, or the world the call is judged in may lack it."""
    try:
        info = os.lstat(path)
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(info.st_mode) or info.st_size == 0
