"""The shell builder's state for the rest of a line (hookd.enrich.shell.build walks the tree on it): its fields,
what a builtin sets for the commands after it (variables, exports, aliases, what `read` and `printf -v` set), an
assignment's value, and each command judged by the effect model in that state (`CommandView`, its words placed)."""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.ledger import Ledger
from hookd.enrich.effects.listings import loop_listing
from hookd.enrich.effects.model import CommandView, EffectModel, Followups
from hookd.enrich.patches import PatchReads, patch_file_text
from hookd.enrich.paths import expand_tilde, has_glob
from hookd.enrich.shell import state as shell_state
from hookd.enrich.shell import traps
from hookd.enrich.shell.expand import declared, expand_words
from hookd.enrich.shell.held_text import with_held_texts
from hookd.enrich.shell.line_builtins import line_builtin
from hookd.enrich.shell.namerefs import declare_references, targets_too
from hookd.enrich.shell.outputs import placed_output, printed_directory
from hookd.enrich.shell.runners import XARGS_INPUT, handed, xargs_arg_file
from hookd.enrich.shell.searches import loop_selects, searched
from hookd.enrich.shell.state import LineState, _Cwd
from hookd.enrich.shell.stdin import (
    listed_into,
    read_or_printed,
    set_at_run_time,
)
from hookd.enrich.shell.tree import (
    ARRAY_MARK,
    _Block,
    _Simple,
)
from hookd.enrich.shell.words import _ASSIGN, LITERAL_MARK, UNSPLIT_MARK, _dynamic


class BuilderState:
    def __init__(self, *, home: str, project_dir: str, max_depth: int) -> None:
        self.home = home
        self.state = LineState(home=home, project_dir=project_dir)
        self.max_depth = max_depth
        self.commands: list[dict[str, Any]] = []
        self.error: str | None = None
        self._pipelines = 0
        self.model = EffectModel(home=home, project=self.state.resolver.project)
        self._functions: dict[str, _Block] = {}  # shell functions defined earlier on the line
        self._called: set[str] = set()
        self._printed: str | None = None  # what the last command walked prints, when it is known text
        self._patch_reads = PatchReads()  # what the line's patch commands may still read of patch files
        self._fed: tuple[str, ...] = ()  # the operands of the commands before the next one in its pipeline
        self._search_fed: str | None = None  # the previous command in the pipeline as a search's substitution
        self._aliases: dict[str, str] = {}  # `alias w='rm -rf'`, `hash -p /bin/rm ls`: a command word's new text
        self._unused_aliases: dict[str, tuple[str, int, _Cwd, bool]] = {}  # defined, not yet used: judged at the end
        self._assigned: dict[str, str] = {}  # each variable's value as written on the line (`${x@P}` runs it)
        self._held: list[str] = []  # here-strings and here-documents `exec N<<<…` put on a descriptor
        self._block_fed: tuple[str, ...] = ()  # the operands of the commands piped into a loop (`| while read p`)
        self._block_search: str | None = None  # the search piped into a loop, as its substitution
        self._searched: dict[str, str] = {}  # a search's substitution -> the stand-in for what it prints
        self._literal: frozenset[str] = frozenset()  # the words of the command being judged whose `$` are text
        self._frame_literal: frozenset[str] = frozenset()  # a function's arguments quoted on its call (`f 'x $y'`)
        self._gathering: tuple[int, list[str | None]] | None = None  # a piped group's depth, what each command printed
        self._reader: list[str] = []  # the words of the command that read a piped group's input
        self._traps: list[traps.Trap] = []  # the traps set so far, walked again as what they read changes
        self._in_trap = False

    def _xargs_items(
        self, words: list[str], redirects: list[dict[str, Any]], cwd: _Cwd, stdin: str | None
    ) -> str | None:
        """The text xargs reads its items from: the pipe's (`stdin`), else none where the command before listed
        (the ledger's listing is the names), else the file's (`-a FILE`, `--arg-file=FILE`, else `< FILE`): what
        the line wrote there, else the disk's (a regular file, bounded as a patch file is); None where it is not
        known (the line made it unseen, it cannot be read whole): the items are then known only at run time."""
        if stdin is not None or self.model.ledger.previous:
            return stdin
        named = xargs_arg_file(words)
        if named is not None:
            path = str(self.state.place(named, cwd)["path"]) if not _dynamic(named) else ""
        else:
            path = next((str(r["path"] or "") for r in reversed(redirects) if r["op"] == "<"), "")
        ledger = self.model.ledger
        if not path or path in ledger.produced:
            return ledger.contents.get(path) if path else None
        return patch_file_text(path, self._patch_reads)

    def fail(self, message: str) -> None:
        self.error = message if self.error is None else self.error

    def _given(self, command: dict[str, Any]) -> list[tuple[str, str]]:
        """The variables a command is given (`X=v cmd`, `env X=v cmd`), earlier values put in and `~` expanded."""
        given = [(key, self._value(value, self.state.variables)) for key, value in command["env"].items()]
        return [(key, expand_tilde(value, self.home)) for key, value in given]  # `env x=~/d`: bash expands it

    def _held_texts(self, simple: _Simple) -> _Simple:
        """`simple` with each quoted use of a variable holding quoted text as that text (held_text.py)."""
        state = self.state
        return replace(simple, words=with_held_texts(simple.words, state.built, state.variables, state.source))

    def _value(self, value: str, variables: dict[str, str], cwd: _Cwd | None = None) -> str:
        """An assignment's value, earlier variables put in (`p=$d/y`), or the directory printed (`r=$(pwd)`)."""
        marked = value.startswith((ARRAY_MARK, LITERAL_MARK))  # an array's source, quoted text: as they are
        words = [] if marked else expand_words([UNSPLIT_MARK + value], variables, self.home)
        if len(words) == 1 and not _dynamic(words[0]):
            return words[0]
        printed = printed_directory(value, cwd, (self._functions, self._aliases, variables)) if cwd else None
        return printed if printed is not None and len(words) == 1 else value

    def _shell_state(
        self, name: str, argv: list[str], depth: int, cwd: _Cwd, privileged: bool, heredoc: str | None = None
    ) -> None:
        """What a builtin sets for the rest of the line: positional parameters, variables, aliases."""
        if name in ("set", "shift", ".", "source", "coproc", "getopts"):
            line_builtin(self.state, argv, cwd)
        if name in ("export", "declare", "typeset", "readonly", "local"):
            if name == "local":
                self.state.local([a.split("=", 1)[0] for a in argv[1:] if a[:1] not in "-+"])
            self._declare(argv, cwd)
            if name == "export" or any(a[:1] == "-" and "x" in a for a in argv[1:]):  # `declare -x X`
                self.state.exported.update(w.split("=", 1)[0] for w in argv[1:] if w[:1] not in "-+")
        if name == "alias":
            for definition in argv[1:]:  # judged where it is used, with the words after it; if never, as if run
                if _ASSIGN.match(definition):
                    alias, value = definition.split("=", 1)
                    self._aliases[alias] = value  # each later command it starts (`shopt -s expand_aliases`)
                    self._unused_aliases[alias] = (value, depth, cwd.copy(), privileged)
        if name == "enable" or (name == "alias" and any(map(_dynamic, argv[1:]))):  # `enable -n false`, `alias $a`:
            self.state.unread = True  # `false` may run a program or an alias; tree.exits' reading is not known
        if name == "hash" and "-p" in argv[1:-2]:  # `hash -p PATH NAME…`: NAME runs PATH (bash(1), hash)
            at = argv.index("-p", 1)
            self._aliases.update(dict.fromkeys(argv[at + 2 :], shlex.quote(argv[at + 1])))
        if name in shell_state.SETS_AT_RUN_TIME:  # `read x`, `mapfile a`, `printf -v x`: x known when it runs
            named = targets_too(self.state, set_at_run_time(name, argv))  # `read r`, r a reference: its target
            self.state.forget(named)
            known = read_or_printed(name, argv, heredoc, self._literal)  # what is known of it: `printf -v x rm`
            self.state.assign(known, cwd)
            if name in ("read", "mapfile", "readarray") and self._block_fed:  # what the pipe's commands print
                self.state.built.update(dict.fromkeys(named, "$(: " + shlex.join(self._block_fed) + ")"))
            listing = self.model.ledger.previous
            if name in ("read", "mapfile", "readarray") and listing:  # `find src | while read f`: names it listed
                selects = loop_selects(self.state, self._block_search, cwd, self.home)
                self.model.ledger.read_listing = loop_listing(listing, selects)
                self.state.variables.update(listed_into(named))

    def _declare(self, argv: list[str], cwd: _Cwd) -> None:
        """`declare`/`local`/… NAME=VALUE sets NAME as an assignment does, unless an attribute makes the value other
        than written (case: `-u`, `-l`; an integer: `-i`): NAME unknown; a reference (`-n`) reads, sets its target."""
        flags = "".join(a[1:] for a in argv[1:] if a[:1] in "-+" and not _ASSIGN.match(a))
        pairs = [a.split("=", 1) for a in argv[1:] if _ASSIGN.match(a)]
        if "n" in flags:  # a name reference: what it reads and sets is its target (namerefs.py)
            declare_references(self.state, argv, pairs, lossy=bool(set(flags) & set("uli")))
            return
        if set(flags) & set("ulic"):  # (`-c` capitalises, bash 5.2): each later value is changed as assigned
            named = [w.split("=", 1)[0] for w in argv[1:] if w[:1] not in "-+"]
            self.state.volatile.update(named)
            self.state.forget(named)
            return
        self.state.assign(declared(pairs, flags, self.home), cwd)

    def _effects(
        self,
        command: dict[str, Any],
        env: dict[str, str],
        cwd: _Cwd,
        privileges: tuple[bool, bool],
        stdin: str | None,
        origins: tuple[str, str],
        given: tuple[str | None, tuple[str, ...]],
    ) -> Followups:
        """The effect model's judgment of the command; `given`: what an echo prints, the wrappers' own words."""
        inherited, privileged = privileges
        printed_text, peeled = given
        origin, substituted = origins
        fed, self._fed = self._fed, ()
        argv = [] if command["name"] in self._functions else command["argv"]
        called = command["name"] in self._functions and command["name"] not in command["wrappers"]
        called = called and command["depth"] < self.max_depth  # as `_after` calls it
        if not argv and command["wrappers"][-1:] == ["env"]:
            argv = ["env"]  # `env` alone prints the environment
        loaders, known, built = catalogue().environment, self.state.variables, self.state.built  # `export X=…`:
        hosts = catalogue().host_environment
        reads = catalogue().get(argv[0].rpartition("/")[2]) if argv else None  # (`export PIP_INDEX_URL=…; pip …`)
        # (the variables naming its index, or the files it reads as code: `export BC_ENV_ARGS=F; bc`)
        sources = (*reads.index_variables, *(e["env"] for e in reads.reads_code if "env" in e)) if reads else ()
        exported = {
            k: v
            for k in self.state.exported
            if (k in loaders or k in hosts or any(re.fullmatch(p, k) for p in sources))
            and (v := known.get(k) or built.get(k))
        }
        view = CommandView(
            name=argv[0] if argv and not command["name"] else command["name"],
            argv=argv,
            env={**exported, **env},
            redirects=[] if called else command["redirects"],  # the function's body writes them (`_call`)
            sudo=privileged and not inherited,
            root=privileged,
            variables=self.state.variables,
            stdin=origin,
            stdin_text=printed_text if command["name"] in ("echo", "printf") else stdin,
            substituted=substituted,
            peeled=peeled,
            fed=fed,
            built=self.state.built,
            handed=handed(command["name"], argv),
            literal=self._literal,
        )

        def place(text: str) -> dict[str, Any]:  # a word placed, with the paths a glob matches on disk now
            placed = placed_output(text, cwd, self.state.place, view, (self._functions, self._aliases))
            if XARGS_INPUT in text:  # a name a listing printed, read where this command runs (listing_selects)
                placed["selects"] = listing_selects(self.model.ledger, self.state, cwd)
            if self.state.moved_away(text, cwd):
                placed["after_cd"] = True  # the effect's `after_cd` (input.shell's args stay as they were)
            if text in self._searched:  # what a search prints (searches.searched), while the disk shows it all
                placed = self.state.searched(self._searched[text], cwd) or placed
            elif has_glob(text) and not _dynamic(text):
                placed = {**placed, "matches": [a["path"] for a in self.state.args([text], cwd)[1:]]}
            return placed

        listed = len(self.model.ledger.listed)
        followups = self.model.command(view, place)
        if argv[:1] == ["find"] or argv[:2] == ["git", "ls-files"]:  # what it prints, as a substitution of it would
            stand_in = searched("$(" + shlex.join(argv) + ")")
            for entry in self.model.ledger.listed[listed:]:
                entry.update(stand_in=stand_in, listed_in=(cwd.path, cwd.known))
        return followups


def listing_selects(ledger: Ledger, state: LineState, cwd: _Cwd) -> list[dict[str, Any]]:
    """For each listing whose names a command reads (`find . -type f | xargs cat`, `… < <(find …)`, `| while read f`,
    `mapfile -t fs < <(find …)`), its root and what its stand-in (`./**/*`, searches.searched) matches on disk,
    placed where the reader runs: a relative name is resolved in the reader's directory, not the listing's (`find .
    | (cd ~ && xargs cat)` reads the home's files of those names). None where hookd cannot follow the reader's
    directory or the disk does not show every match: the names are known at run time."""
    out: list[dict[str, Any]] = []
    for entry in ledger.previous or ledger.read_listing:
        raw, stand_in = str(entry.get("raw") or ""), entry.get("stand_in")
        moved = not raw.startswith("/") and entry.get("listed_in", (cwd.path, cwd.known)) != (cwd.path, cwd.known)
        root = (state.place(raw, cwd) if cwd.known else None) if moved else dict(entry)
        found = state.searched(str(stand_in), cwd) if stand_in else {}
        out.append({"root": root and {**entry, **root}, "found": found})
    return out
