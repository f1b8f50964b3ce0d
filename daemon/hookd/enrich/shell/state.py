"""What one command line has set up so far, as the shell would hold it: variables, arrays and positional
parameters, links made, `mktemp` paths, and where each command runs (followed through `cd`). The builder
walks the tree; this places each word it meets against that state."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

from hookd.enrich.paths import PathResolver, has_glob
from hookd.enrich.shell.containers import on_host
from hookd.enrich.shell.expand import expand_words
from hookd.enrich.shell.held_text import held, unheld
from hookd.enrich.shell.namerefs import mirror_references, through_references
from hookd.enrich.shell.runners import operands
from hookd.enrich.shell.tree import ARRAY_MARK, _Block, _Redir, _Simple
from hookd.enrich.shell.words import _FD_DUP, UNSPLIT_MARK, _dynamic, elements_key
from hookd.enrich.sourced import sourced_text

POSITIONAL = ("@", "*", "#", elements_key("@"), *(str(n) for n in range(1, 10)))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # a variable's (a command's env also holds `-C`: env's directory)


# Builtins that set the variables they name from what they read or print (bash manual, "Bash Builtins")
SETS_AT_RUN_TIME = frozenset({"read", "mapfile", "readarray", "printf", "getopts", "wait", "unset"})

# The walks of `for` bodies one line gets, loops in loops included: each word of a list is walked (a word left out
# would be a word never judged), until the line has used them all (16 words in each of four nested loops once held
# the loop for 20 s: 65,536 walks)
LOOP_WALKS = 256

# The argv words one line's commands may have in all, each walked (expanded, its paths resolved, its effects made):
# past them the rest of the line is not known, a parse error the rules ask about. Functions called over and over,
# aliases used over and over and `set -- "$@" "$@"` multiply what a short line walks (a 4 KB line of a 100-command
# function called 500 times never finished); four times the default `max_command_words`, which denies such a line.
WALK_WORDS = 1024

# The longest value a variable keeps: a longer one was built by the line from itself (`a=$a$a` thirty times is a
# gigabyte), not written in it (the command's bytes are capped below this), and is not known from there on.
VALUE_CHARS = 64 * 1024


@dataclass(slots=True)
class _Cwd:
    """Where the commands of one shell run; `known` turns false after a `cd` we cannot follow. `previous`: where
    they ran before the line's last `cd` (bash's OLDPWD, `cd -`), None before any (the agent's shell's own)."""

    path: str
    known: bool = True
    previous: str | None = None

    def copy(self) -> _Cwd:
        return _Cwd(self.path, self.known, self.previous)


class Journaled(dict[str, str]):
    """Variables whose changes inside a subshell are undone when it ends: each scope notes the value a name had
    before its first change there, so opening and closing one costs what it changed, not what the line set."""

    __slots__ = ("_frames", "linked")

    def __init__(self) -> None:
        super().__init__()
        self._frames: list[dict[str, str | None]] = []
        self.linked: Journaled | None = None  # the variables' choices (choices.py): a name set or unset has none

    def _note(self, key: str) -> None:
        if self._frames and key not in self._frames[-1]:
            self._frames[-1][key] = dict.get(self, key)
        if self.linked is not None and key in self.linked:
            del self.linked[key]

    def __setitem__(self, key: str, value: str) -> None:
        self._note(key)
        if len(value) > VALUE_CHARS:
            super().pop(key, None)
            return
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self._note(key)
        super().__delitem__(key)

    def pop(self, key: str, default: Any = None) -> Any:
        self._note(key)
        return super().pop(key, default)

    def update(self, *args: Any, **kwargs: str) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: str, default: str = "") -> str:
        if key not in self:
            self[key] = default
        return dict.get(self, key, default)

    def clear(self) -> None:
        for key in list(self):
            del self[key]
        if self.linked is not None:
            self.linked.clear()

    def open(self) -> None:
        self._frames.append({})

    def changes(self) -> list[str]:
        return list(self._frames[-1])

    def settle(self) -> dict[str, str | None]:
        """The names changed since the last `open`, each with its value before (kept, the enclosing scope noting
        them as its own)."""
        frame = self._frames.pop()
        if self._frames:
            for key, value in frame.items():
                self._frames[-1].setdefault(key, value)
        return {key: value for key, value in frame.items() if dict.get(self, key) != value}

    def close(self) -> None:
        for key, value in self._frames.pop().items():
            if value is None:
                super().pop(key, None)
            else:
                super().__setitem__(key, value)


class WalkBudget:
    """The argv words a line's commands may still have (`WALK_WORDS`)."""

    __slots__ = ("words",)

    def __init__(self) -> None:
        self.words = WALK_WORDS

    def past(self, words: int) -> bool:
        """Whether a command of `words` argv words is past the line's walk: once one is, every later one is too, and
        the line's analysis ends in a parse error (`walked_too_far`)."""
        self.words -= max(1, words)
        return self.words < 0


class LineState:
    """The shell state a line builds up, and the words placed as paths against it."""

    __slots__ = (
        "_fresh", "_links", "_locals", "_placed", "built", "choices", "choosing", "exported", "home", "loop_walks",
        "mounted", "mounts", "references", "resolver", "source", "unknown_directories", "unread", "variables",
        "volatile", "walk",
    )  # fmt: skip

    def __init__(self, *, home: str, project_dir: str) -> None:
        self.home = home
        self.source = ""  # the line's own text (held_text.py reads how it names a variable)
        self.volatile: set[str] = set()  # `declare -l x`: every value assigned to x is changed as it is assigned
        self.loop_walks = LOOP_WALKS  # the loop bodies the line may still walk with a value (`loop_walks`)
        self.walk = WalkBudget()  # the argv words the line's commands may still have
        self.resolver = PathResolver(home=home, project_dir=project_dir)
        self.variables = Journaled()  # set by `X=v` statements earlier on the line
        self.references: dict[str, str] = {}  # `declare -n` names: the variable each stands for ("": named at run time)
        self.exported: set[str] = set()  # `export X=…`, `declare -x X`: in the environment of every later command
        self.built = Journaled()  # a variable set when the line runs, as written (`pid=$(pgrep x)`)
        self.choices = Journaled()  # a variable one of a few known values (choices.py), not in `variables`
        self.variables.linked = self.choices
        self.choosing = False  # a command is walked once per value of its variables' choices (choices.each_value)
        self._placed: dict[tuple[str, str], str] = {}
        self._links: dict[str, str] = {}  # link path -> the path it points at, made earlier on the line
        self._fresh: set[str] = set()  # directories and files `mktemp` made earlier on the line
        self._locals: list[dict[str, str | None]] = []  # per function call: its `local` names' values before
        self.mounts: tuple[tuple[str, str], ...] = ()  # (inside, host): in a container's command, its bind mounts
        self.mounted: list[tuple[str, str]] = []  # (inside, host): `mount --bind HOST INSIDE` earlier on the line
        self.unknown_directories: set[str] = set()  # PWD, OLDPWD: unset or read by the line since its last `cd`
        self.unread = False  # code the walk did not read ran in this shell (`. FILE`, `enable`): names redefined

    # ----------------------------------------------------------------------------------------------
    # Words placed as paths

    def place(self, text: str, cwd: _Cwd) -> dict[str, Any]:
        key = (text, cwd.path)
        path = self._placed.get(key)
        if path is None:
            path = self._placed[key] = self._through_links(self.resolver.absolute(text, cwd.path, tilde=False))
        path = on_host(path, self.mounts) if self.mounts else path
        in_project = self.resolver.contains(path) and not _dynamic(text) and (cwd.known or text.startswith("/"))
        placed = {"raw": text, "path": path, "in_project": in_project}
        if self._fresh and not _dynamic(text) and _within(path, self._fresh):
            placed["fresh"] = True  # made by `mktemp` earlier on this line: nothing of the user's is there
        return placed

    def searched(self, stand_in: str, cwd: _Cwd) -> dict[str, Any] | None:
        """What a search prints placed (searches.searched: `ROOT/**/PAT`) with the paths it matches on disk now,
        a leading dot too (find's `*` matches one, the shell's does not); None when the disk is not all read, or
        the search is of a directory relative to one the line went to that hookd cannot follow."""
        if not cwd.known and not stand_in.startswith("/"):
            return None
        found, complete = self.resolver.matches(stand_in, cwd.path, tilde=False, hidden=True)
        return {**self.place(stand_in, cwd), "matches": found} if complete else None

    def moved_away(self, text: str, cwd: _Cwd) -> bool:
        """`text` is relative to a directory the line moved to that hookd cannot follow (one it follows places it)."""
        return not text.startswith("/") and not cwd.known

    def args(self, words: list[str], cwd: _Cwd) -> list[dict[str, Any]]:
        """Each operand placed; a glob is followed by the paths it matches on disk now, as the shell would
        expand it (bounded: enrich/paths.expand_glob; `glob` names the pattern), the pattern kept too."""
        out = []
        for word in words:
            out.append(self.place(word, cwd))
            if has_glob(word) and not _dynamic(word):
                found, _complete = self.resolver.matches(word, cwd.path, tilde=False)
                known = cwd.known or word.startswith("/")
                out.extend(
                    {"raw": path, "path": path, "in_project": known and self.resolver.contains(path), "glob": word}
                    for path in found
                )
        return out

    def redirect(self, redirect: _Redir, cwd: _Cwd) -> dict[str, Any]:
        if redirect.target is None or not redirect.is_path:
            closed = {"fd": redirect.fd} if redirect.target == "-" and (redirect.fd or 0) > 2 else {}  # `exec 7<&-`
            return {"op": redirect.op, "target": redirect.target, "path": None, "in_project": None, **closed}
        target = self._expanded(redirect.target)
        if redirect.op in (">&", "<&") and _FD_DUP.fullmatch(target):  # `>&"${COPROC[1]}"`: a descriptor duplicated
            return {"op": redirect.op, "target": target, "path": None, "in_project": None}
        placed = self.place(target, cwd)
        out = {"op": redirect.op, "target": target, "path": placed["path"], "in_project": placed["in_project"]}
        if redirect.fd is not None and redirect.fd > 2:  # `exec 7<F`: /dev/fd/7 names F from then on
            out["fd"] = redirect.fd
        return out

    def _expanded(self, target: str) -> str:
        """A redirect's target with the variables set earlier on the line put in (`out=build/log; … > "$out"`);
        bash refuses a target that expands to more than one word, so the word is taken whole."""
        if "$" not in target:
            return target
        words = expand_words([UNSPLIT_MARK + target], self.variables, self.home)
        return words[0] if len(words) == 1 else target

    # ----------------------------------------------------------------------------------------------
    # Variables, arrays, positional parameters

    def assign(self, assigns: list[tuple[str, str]], cwd: _Cwd | None = None) -> None:
        if self.references:  # an assignment through a `declare -n` reference sets its target (namerefs.py)
            assigns = through_references(self, assigns)
        for key, value in assigns:
            unheld(self.built, (key,))  # (set again below when it is quoted text)
            self.choices.pop(key.split("[", 1)[0], None)
            if key in self.volatile:
                self.forget([key])
                continue
            fresh = _mktemp(value, self.variables.get("TMPDIR", "/tmp"))
            if "[" in key:  # `a[k]=v` (sitter's element): which element is only known when it runs
                self.forget([key.split("[", 1)[0]])
            elif fresh is not None and cwd is not None:
                path = self.resolver.absolute(fresh, cwd.path, tilde=False)
                self._fresh.add(path)
                self.variables[key] = path
            elif value.startswith(ARRAY_MARK + "(") and value.endswith(")"):  # an array: `a=(-r -f)`
                self._array(key, value[len(ARRAY_MARK) + 1 : -1])
            elif _dynamic(value):
                self.variables.pop(key, None)
                self.built[key] = held(value)  # quoted text: as written (held_text.py)
            else:
                self.variables[key] = value
        mirror_references(self)

    def forget(self, names: list[str]) -> None:
        """Variables (and arrays) set only when the line runs: unknown from here on."""
        self.unknown_directories.update(n for n in names if n in ("PWD", "OLDPWD"))  # not where `cd` went
        unheld(self.built, names)
        for name in names:
            self.choices.pop(name, None)
        for key in {k for k in self.variables for n in names if k == n or k.startswith(n + "[")}:
            del self.variables[key]

    def _array(self, key: str, inside: str) -> None:
        appended = f'"${{{key}[@]}}" '  # `a+=(x)` (words.assignment): the elements a has, then x
        if inside.startswith(appended) and (had := self.variables.get(elements_key(key + "[@]"))) is not None:
            elements = had.split("\x00") if had else []
            inside = " ".join(shlex.quote(e) for e in elements) + " " + inside[len(appended) :]
        for name in [k for k in self.variables if k.startswith(key + "[")]:
            del self.variables[name]
        try:
            elements = shlex.split(inside)
        except ValueError:
            elements = inside.split()
        if _dynamic(inside):
            self.variables.pop(key, None)
            return
        self.variables[key] = elements[0] if elements else ""
        self.variables[key + "[@]"] = self.variables[key + "[*]"] = " ".join(elements)
        self.variables[elements_key(key + "[@]")] = "\x00".join(elements)
        for n, element in enumerate(elements[:64]):
            self.variables[f"{key}[{n}]"] = element

    def positional(self, args: list[str] | None) -> None:
        """`set -- a b`, a function's arguments: `$1`…`$9`, `$@`, `$*`, `$#`; None makes them unknown."""
        for key in POSITIONAL:
            self.variables.pop(key, None)
        if args is None:
            return
        self.variables[elements_key("@")] = "\x00".join(args)  # `"$@"`: each its own word, known or not
        if any(_dynamic(a) for a in args):
            return
        self.variables["@"] = self.variables["*"] = " ".join(args)
        self.variables["#"] = str(len(args))
        for n, arg in enumerate(args[:9], start=1):
            self.variables[str(n)] = arg

    @contextmanager
    def call_frame(self, args: list[str] | None) -> Iterator[None]:
        """A function's body runs with its arguments as the positional parameters (None: not known); the
        caller's come back."""
        saved = {k: self.variables.get(k) for k in POSITIONAL}
        self.positional(args)
        self._locals.append({})
        try:
            yield
        finally:
            unheld(self.built, self._locals[-1])  # a local's quoted text is not the caller's value
            for key, value in [*saved.items(), *self._locals.pop().items()]:
                if value is None:
                    self.variables.pop(key, None)
                else:
                    self.variables[key] = value

    @contextmanager
    def command_frame(
        self, positional: list[str] | None, same_shell: bool, env: list[tuple[str, str]], cwd: _Cwd
    ) -> Iterator[None]:
        """What a command string runs in: a new shell's own positional parameters (`sh -c SCRIPT NAME ARG…`; eval's
        are the line's), and the variables the command is given (`X=v sh -c …`, `env X=v sh -c …`, `X=v eval …`
        hold v for the script), the line's own values back after it."""
        given = [(key, value) for key, value in env if _NAME.fullmatch(key)]
        saved = {key: (self.variables.get(key), self.built.get(key)) for key, _ in given}
        with nullcontext() if same_shell else self.call_frame(positional):
            self.assign(given, cwd)
            try:
                yield
            finally:
                for key, (value, built) in saved.items():
                    for table, kept in ((self.variables, value), (self.built, built)):
                        if kept is None:
                            table.pop(key, None)
                        else:
                            table[key] = kept

    def local(self, names: list[str]) -> None:
        """`local NAME`: NAME gets its caller's value back when the function returns ("Bash Builtins", local)."""
        unheld(self.built, names)
        if self._locals:
            for name in names:
                self._locals[-1].setdefault(name, self.variables.get(name))

    def scope(self, subshell: bool = True) -> None:
        """A subshell starts (`( … )`, `$( … )`, a pipeline's command): what it assigns, `restore` undoes
        (`export` is kept: judging a later command with more of the environment set only asks more)."""
        if subshell:
            for table in (self.variables, self.built, self.choices):
                table.open()

    def restore(self, subshell: bool = True) -> None:
        if subshell:
            for table in (self.variables, self.built, self.choices):
                table.close()

    # ----------------------------------------------------------------------------------------------
    # Links and directories

    def link(self, argv: list[str], cwd: _Cwd, link_options: frozenset[str] = frozenset()) -> None:
        """`ln [-s] TARGET [LINK]`, `link`, a copier given one of its `link_options` (`cp -s/-l`): later paths
        through LINK are paths under TARGET."""
        options = [a for a in argv[1:] if a.startswith("-") and a != "-"]
        short = {o[1] for o in link_options if len(o) == 2}
        if link_options and not any(o in link_options or (o[1] != "-" and short & set(o[1:])) for o in options):
            return
        symbolic = any(o.startswith("--symbolic") or (not o.startswith("--") and "s" in o) for o in options)
        found = operands(argv)
        if not found or any(o in ("-t", "--target-directory") or o.startswith("--target") for o in options):
            return
        target = found[0]
        link = found[1] if len(found) > 1 else target.rstrip("/").rsplit("/", 1)[-1]
        link_path = self.resolver.absolute(link, cwd.path, tilde=False)
        base = link_path.rsplit("/", 1)[0] or "/" if symbolic else cwd.path
        self._links[link_path] = self.resolver.absolute(target, base, tilde=False)
        self._placed.clear()

    def _through_links(self, path: str) -> str:
        for link, target in self._links.items():
            if path == link or path.startswith(link + "/"):
                return target + path[len(link) :]
        return path

    def chdir(self, name: str, argv: list[str], cwd: _Cwd, env: dict[str, str]) -> None:
        if name != "cd" and "-n" in argv[1:]:  # `pushd -n`/`popd -n` change the stack, not the directory
            return
        targets = [a for a in argv[1:] if a == "-" or not a.startswith(("-", "+"))]
        before = cwd.path if cwd.known else None
        if name == "cd" and targets[:1] == ["-"]:  # `cd -` is `cd "$OLDPWD"`
            oldpwd = directories(self, cwd).get("OLDPWD", self.variables.get("OLDPWD"))
            targets = [oldpwd] if oldpwd is not None and oldpwd.startswith("/") and not _dynamic(oldpwd) else targets
        _move(self, name, targets, cwd, env)
        # bash sets PWD and OLDPWD on each `cd` that succeeds: OLDPWD known where the line knew where it was and
        # the new directory is there now (a `cd` into nothing fails and leaves both as they were: not known here)
        for variable in ("PWD", "OLDPWD"):
            self.variables.pop(variable, None)
            self.unknown_directories.discard(variable)
        there = cwd.known and (os.path.isdir(cwd.path) or _within(cwd.path, self._fresh))
        cwd.previous = before if name == "cd" and there else None  # (pushd/popd: the stack's top, not followed)

    def cdpath(self, target: str, cdpath: str | None, cwd: _Cwd) -> tuple[str, bool] | None:
        """Where `cd TARGET` goes through CDPATH (as bash: the first entry holding TARGET as a directory), or
        None when CDPATH does not apply; a CDPATH hookd cannot read leaves the directory unknown."""
        if not cdpath or target.startswith(("/", "./", "../")) or target in (".", ".."):
            return None
        if _dynamic(cdpath):
            return cwd.path, False
        for entry in cdpath.split(":"):
            base = self.resolver.absolute(entry or ".", cwd.path, tilde=False)
            candidate = self.resolver.absolute(target, base, tilde=False)
            if os.path.isdir(candidate):
                return candidate, cwd.known or base.startswith("/")
        if os.path.isdir(self.resolver.absolute(target, cwd.path, tilde=False)):
            return None
        return cwd.path, False  # nowhere yet: it may be made before the `cd` runs, in any of them


def _move(state: LineState, name: str, targets: list[str], cwd: _Cwd, env: dict[str, str]) -> None:
    if name == "popd" or (name == "pushd" and not targets):
        cwd.known = False
    elif not targets:
        cwd.path, cwd.known = state.resolver.absolute(state.home, "/"), True
    elif targets[0] == "-" or _dynamic(targets[0]):
        cwd.known = False
    else:
        target = targets[0]
        searched = state.cdpath(target, env.get("CDPATH", state.variables.get("CDPATH")), cwd)
        there = state.resolver.absolute(target, cwd.path, tilde=False), cwd.known or target.startswith("/")
        cwd.path, cwd.known = searched if searched is not None else there


def directories(state: LineState, cwd: _Cwd) -> dict[str, str]:
    """`$PWD` and `$OLDPWD` where the line knows them: from where it went, unless it set them itself (then they
    are its variables) or made them unknown (`unset`, `read`) since its last `cd`."""
    known = {"PWD": cwd.path if cwd.known else None, "OLDPWD": cwd.previous}
    unknown = state.unknown_directories | state.variables.keys()
    return {name: path for name, path in known.items() if path is not None and name not in unknown}


def _within(path: str, directories: set[str]) -> bool:
    """`path` is one of `directories` or below one (a walk up its parents: linear in its length)."""
    while path:
        if path in directories:
            return True
        path = path.rsplit("/", 1)[0]
    return False


_MKTEMP = re.compile(r"^(?:\$\(|`)\s*mktemp((?:\s+[-\w./=%+,]+)*)\s*(?:\)|`)$")


def _mktemp(value: str, tmpdir: str) -> str | None:
    """The path `$(mktemp …)` makes (its unique part as `tmp.mktemp`), or None when `value` is not that."""
    match = _MKTEMP.match(value)
    if match is None:
        return None
    words = match.group(1).split()
    directory: str | None = None
    template = ""
    k = 0
    while k < len(words):
        word = words[k]
        if word in ("-p", "--tmpdir") and k + 1 < len(words):
            directory = words[k + 1]
            k += 1
        elif word.startswith("--tmpdir="):
            directory = word.split("=", 1)[1]
        elif word.startswith("-p") and len(word) > 2:
            directory = word[2:]
        elif word == "-t":
            directory = directory or tmpdir
        elif not word.startswith("-"):
            template = word
        k += 1
    if template and "/" in template and directory is None:
        return template.rsplit("/", 1)[0] + "/tmp.mktemp"
    return (directory or tmpdir).rstrip("/") + "/tmp.mktemp"


def in_own_source(state: LineState, walk: Callable[[], None]) -> None:
    """`walk` a script inside the line (a file's, stdin's, a `-c` string's): `BASH_SOURCE` is the file's name in the
    first two, empty only in the agent's own command string, so while it is walked its value is not known
    (`outputs.printed_directory` reads the script's directory as the working directory only where it is empty)."""
    saved = state.variables.get("BASH_SOURCE")
    state.variables["BASH_SOURCE"] = "${BASH_SOURCE}"
    try:
        walk()
    finally:
        if saved is None:
            state.variables.pop("BASH_SOURCE", None)
        else:
            state.variables["BASH_SOURCE"] = saved


def loop_walks(state: LineState, name: str, words: list[str], cwd: _Cwd) -> Iterator[None]:
    """One step for each walk of a `for` body, its variable set first: to each word of its list (none: the positional
    parameters, `"$@"`) while the line has walks left (`LineState.loop_walks`), then once more not known, so that what
    the later words would do is still judged, as an unknown value is."""
    for word in words or ["$@"]:
        if state.loop_walks <= 0:
            state.forget([name])
            yield None
            return
        state.loop_walks -= 1
        if name in state.references:  # a reference's loop makes it stand for each word's variable in turn (bash(1))
            state.references[name] = word if _NAME.fullmatch(word) else ""
            mirror_references(state)
        else:
            state.assign([(name, word)], cwd)
        yield None


_LINES_READ = 16  # the lines of a file a `while read` loop's body is walked with (as a `for` loop's words)


@contextmanager
def in_container(state: LineState, mounts: tuple[tuple[str, str], ...]) -> Iterator[None]:
    """While a container's command is walked (`docker run -v HOST:INSIDE img CMD`), a path it names below a
    bind mount's target is the host path bound there (`~` the home): `sh -c 'echo … >> /rc'` under
    `-v ~/.bashrc:/rc` appends to the home's `.bashrc`, as every rule about that file sees it."""
    outer = state.mounts  # (a mount inside another's view: its host path is the outer view's, `chroot /host` in a
    bound = [(i, on_host(state.home + h[1:] if h[:2] in ("~", "~/") else h, outer)) for i, h in mounts]  # container)
    kept = [(i, h) for i, h in outer if not any(i == b or i.startswith(b.rstrip("/") + "/") for b, _ in bound)]
    state.mounts = tuple(sorted([*kept, *((i, h) for i, h in bound if h.startswith("/"))], key=lambda m: -len(m[0])))
    try:
        yield
    finally:
        state.mounts = outer


def lines_read(
    state: LineState, block: _Block, cwd: _Cwd, written: dict[str, str]
) -> tuple[str, tuple[str, ...]] | None:
    """`while [IFS=] read -r NAME; do …; done < FILE` over a file whose text is known (one the line wrote, or
    a project file: sourced.sourced_text's bounds): the body runs once with NAME as each of its lines
    (BashFAQ/001), as a `for` loop over them; at most _LINES_READ of them, else None (not followed)."""
    first = block.items[0] if block.items else None
    feeds = [r for r in block.redirects if r.op == "<" and r.is_path and r.target]
    if not isinstance(first, _Simple) or len(feeds) != 1 or first.subs or first.redirects:
        return None
    words = first.words
    if words[:1] != ["read"] or any(w.startswith("-") and w != "-r" for w in words[1:]) or len(words) < 2:
        return None
    names = [w for w in words[1:] if w != "-r"]
    path = str(state.place(state._expanded(str(feeds[0].target)), cwd).get("path") or "")
    text = written.get(path) if path in written else sourced_text(path, state.resolver.project)
    if len(names) != 1 or not _NAME.fullmatch(names[0]) or text is None:
        return None
    kept = [line if ("IFS", "") in first.assigns else line.strip() for line in text.splitlines()]
    return (names[0], tuple(shlex.quote(line) for line in kept)) if 0 < len(kept) <= _LINES_READ else None


def walked_too_far(state: LineState) -> str | None:
    """Why the line's analysis stopped before its end (`WalkBudget.past`), or None: what it does is not known."""
    if state.walk.words >= 0:
        return None
    return f"the line runs more than {WALK_WORDS} words (functions, aliases or loops run again and again)"
