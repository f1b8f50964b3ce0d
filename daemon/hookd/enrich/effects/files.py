"""What a program does with its files (docs/policies.md, "The effect model"): the reads, writes, deletes,
copies, moves, links and mode changes its catalogue entry gives its operands and option values."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.fetches import fetch_effects
from hookd.enrich.effects.filters import mark_names_only
from hookd.enrich.effects.followed import find_roots, linked_roots
from hookd.enrich.effects.guessed import may_name_a_file
from hookd.enrich.effects.landed import landed_files, names_contents
from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.listings import names_listed
from hookd.enrich.effects.opened import opened_effects
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.overwrites import holds_nothing_of_its_own, keyword_fills, links_to_nothing, stdin_filler
from hookd.enrich.effects.public_lines import public_lines
from hookd.enrich.effects.replaced import replaced_files
from hookd.enrich.effects.revealed import prints_none
from hookd.enrich.effects.sends import backend_path, remote_copy
from hookd.enrich.effects.tar import member_writes, tar_effects
from hookd.enrich.effects.words import (
    _INERT,
    _URL,
    STDIN_FILES,
    _dynamic,
    _file_operands,
    _uploaded_file,
)
from hookd.enrich.paths import has_glob


class FileEffects:
    """The file effects of one line, recorded into its ledger."""

    __slots__ = ("ledger",)

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def files(
        self, program: Program, parsed: Parsed, argv: list[str], name: str, view: CommandView, place: Place
    ) -> None:
        """The files a program reads, writes, deletes, copies… as its catalogue entry says; what it reads is
        deleted after under one of its `removes` options (`zip -m`, `tar --remove-files`, `7z -sdel`, `rsync
        --remove-source-files`)."""
        start = len(self.ledger.effects)
        subcommand = program.subcommand_ops.get(parsed.operands[0], "") if parsed.operands else ""
        if subcommand:
            recursive = program.recursive_always or any(o in program.recursive for o, _ in parsed.options)
            operands = [backend_path(word, program.local_backends) for word in parsed.operands[1:]]
            self._subcommand(subcommand, operands, name, place, recursive)
        else:
            self._files(program, parsed, argv, name, view, program.placer(place))
            mark_names_only(self.ledger.effects[start:], program, parsed)
            if program.lists_names:  # `grep -rl PAT ROOT`: names of files below ROOT, as find's
                names_listed(self.ledger, argv, name, place)
        self._word_ops(program, parsed, name, view, place)
        if public_lines(program.name, argv):  # `grep '^VITE_' .env.local`: it prints public variables only
            for effect in self.ledger.effects[start:]:
                if effect["op"] == "read":
                    effect["public"] = True
        if program.removes and (
            any(o in program.removes for o, _ in parsed.options) or not program.removes.isdisjoint(argv[1:])
        ):
            # (a copy's sources too: `rsync --remove-source-files SRC/ DST/` removes what it sent)
            read = [
                e for e in self.ledger.effects[start:] if e["op"] in ("read", "copy") and "raw" in e and "glob" not in e
            ]
            for effect in read:
                self.ledger.add("delete", place(str(effect["raw"])), name, recursive=effect["recursive"])

    def _word_ops(self, program: Program, parsed: Parsed, name: str, view: CommandView, place: Place) -> None:
        """`redis-cli MODULE LOAD /tmp/m.so`: the operand after a command's words gets the op its entry names."""
        said = [w.lower() for w in parsed.operands]
        for words, op in program.word_ops.items():
            if tuple(said[: len(words)]) == words and len(said) > len(words):
                self.apply(op, place(parsed.operands[len(words)]), name, op == "write-tree", view)

    def _subcommand(self, op: str, operands: list[str], name: str, place: Place, recursive: bool) -> None:
        """`rclone purge PATH`, `rclone sync SRC DST`, `7z a ARCHIVE FILE…`: what a subcommand does to the host
        paths it names (a `remote:path` is another host's: a copy, sync or move to one sends the local trees)."""
        local = [w for w in operands if ":" not in w or w.startswith(("/", "./", "../", "~"))]
        if op in ("copy-tree", "sweep-last", "move") and len(operands) >= 2 and operands[-1] not in local:
            # `rclone copy ~ b2:bucket`: every file below the local sources leaves for another host's store
            for word in [w for w in operands[:-1] if w in local]:
                self.ledger.add("read", place(word), name, recursive=True)
            self.ledger.add("send", None, name, host=operands[-1].split(":", 1)[0], known=True)
            return
        if op == "archive":  # the archive is written, the files read
            for k, word in enumerate(operands):
                self.ledger.add("write" if k == 0 else "read", place(word), name, recursive=recursive and k > 0)
            return
        if op in ("delete", "delete-tree"):
            for word in local:
                self.ledger.add("delete", place(word), name, recursive=op == "delete-tree" or recursive)
        elif op == "copy-tree" and len(operands) >= 2:  # `rclone copy SRC DEST` between two local paths
            self._transfer("copy", [w for w in operands[:-1] if w in local], [operands[-1]], place, name, True, False)
        elif op in ("move-to", "copy-to", "copy-tree-to") and len(operands) >= 2:  # `cmake -E copy SRC… DEST`
            kind = "move" if op == "move-to" else "copy"
            self._transfer(kind, operands[:-1], [operands[-1]], place, name, op != "copy-to", False)
        elif op in ("sweep-last", "mount-last") and operands and operands[-1] in local:  # `rclone mount R: DIR`
            self.ledger.add("write", place(operands[-1]), name, recursive=True)  # (a mount hides DIR's tree)
            if op == "sweep-last":
                self.ledger.add("delete", place(operands[-1]), name, recursive=True, sweep=True)
        elif op == "move" and len(operands) >= 2:
            self._transfer("move", [w for w in operands[:-1] if w in local], [], place, name, True, False)

    def _files(
        self, program: Program, parsed: Parsed, argv: list[str], name: str, view: CommandView, place: Place
    ) -> None:
        recursive = program.recursive_always or any(o in program.recursive for o, _ in parsed.options)
        operands = _file_operands(program, parsed)
        self._option_values(program, parsed, name, recursive, view, place)
        self._stdin_files(program, parsed, operands, view, place)
        opened_effects(self.ledger, program, parsed, operands, name, place)
        if program.keyword_ops:
            keyword_fills(self.ledger, program.keyword_ops, operands, place, (name, stdin_filler(view)))
            for word in operands:
                key, eq, value = word.partition("=")
                if eq and key in program.keyword_ops:
                    self.apply(program.keyword_ops[key], place(value), name, recursive, view)
        elif program.operands == "device" and any(o in program.device_read_only for o, _ in parsed.options):
            return
        elif program.operands in ("fetch", "fetch-first"):
            fetch_effects(self.ledger, program, parsed, operands, place, name)
        elif program.operands in ("copy", "move", "link"):
            self._transfers(program, parsed, operands, name, recursive, view, place)
        elif program.writes_operands_in_place(parsed.options):  # `crudini --set FILE SECTION KEY`: FILE alone
            for word in operands[:1] if program.rest == "none" else operands:
                self.ledger.add("write", place(word), name)
        elif program.archive and "tar" in (program.name, program.like):
            tar_effects(self.ledger, parsed, operands, place, name)
        elif program.replaces and replaced_files(self.ledger, program, parsed, operands, place, recursive):
            return
        else:
            self._operands(program, parsed, operands, name, recursive, view, place)
            if not program.operands and not program.first and not program.gtfobins.isdisjoint(_FILE_FUNCTIONS):
                words = [name, *parsed.operands, *(v for o, v in parsed.options if v and o not in program.option_ops)]
                writes = "file-write" in program.gtfobins and "file-read" not in program.gtfobins
                self.guess(words, name, place, writes)

    def _stdin_files(
        self, program: Program, parsed: Parsed, operands: list[str], view: CommandView, place: Place
    ) -> None:
        given = {o for o, _ in parsed.options}
        if given & program.stdin_names:
            self._stdin_names(view, place, program.name)
        if operands and given & program.stdin_copies:
            self._stdin_copies(view, place, program.name, operands[-1])

    def _stdin_names(self, view: CommandView, place: Place, name: str) -> None:
        """`cpio -o`: the files named on stdin are read, the words of known text or what the command before listed."""
        if view.stdin == "text" and view.stdin_text:
            for word in view.stdin_text.split():
                self.ledger.add("read", place(word), name)
        for placed in self.ledger.previous:
            self.ledger.add("read", placed, name, recursive=True, from_stdin=True)

    def _stdin_copies(self, view: CommandView, place: Place, name: str, directory: str) -> None:
        """`find .copilot | cpio -pdmu ~`: each file stdin names is copied below DIR under the name it is given
        (a listing's names as the command before spelled them; none known: DIR's whole tree is written)."""
        names = view.stdin_text.split() if view.stdin == "text" and view.stdin_text else []
        names += [str(p.get("raw") or "") for p in self.ledger.previous]
        base = directory.rstrip("/")
        for word in [n for n in names if n and not n.startswith("/")] or [""]:
            self.ledger.add("write", place(f"{base}/{word.removeprefix('./')}" if word else directory), name,
                            recursive=True)  # fmt: skip

    def _option_values(
        self, program: Program, parsed: Parsed, name: str, recursive: bool, view: CommandView, place: Place
    ) -> None:
        """Options whose value is a file read or written (`sort -o FILE`, `curl -d @FILE`)."""
        given = {o for o, _ in parsed.options}
        for option, value in parsed.options:
            op = program.option_ops.get(option)
            if option in program.makes and not given & program.makes[option]:
                op = "write"  # `ssh-keygen -t ed25519 -f KEY`: the key it generates, not one it reads
            if op == "read" and prints_none(program, parsed, given):
                op = "use"
            if op and value is not None:
                self.apply(op, place(value), name, recursive, view)
            if option in program.at_file_options and value:
                sent = _uploaded_file(value, option=option)
                if sent:
                    self.ledger.add("read", place(sent), name, upload=True)
        if program.at_file_args:  # httpie's request items: `@file`, `field@file`, `field=@file`, `field:=@file`
            for word in parsed.operands[1:]:
                sent = _uploaded_file(word)
                if sent:
                    self.ledger.add("read", place(sent), name, upload=True)

    def _operands(
        self,
        program: Program,
        parsed: Parsed,
        operands: list[str],
        name: str,
        recursive: bool,
        view: CommandView,
        place: Place,
    ) -> None:
        """Each operand by the op its place gives it; chmod's mode word made private marks its changes."""
        if program.copy_when and program.copy_when <= {o for o, _ in parsed.options} and len(operands) > 1:
            self._transfer("copy", operands[:-1], [operands[-1]], place, name, True, False)  # `pax -rw F… DIR`
            return
        if program.empties_in_place and program.writes_operands_in_place(parsed.options, program.empties_in_place):
            for word in operands:  # `truncate -s 0 F`: F's content is lost, a delete of it as shred's
                self.ledger.add("delete", place(word), name, emptied=True)
            return
        if (
            program.operands == "chmod"
            and program.first == "none"
            and any(o == "--reference" for o, _ in parsed.options)
        ):
            operands = ["", *operands]  # `chmod --reference=RFILE FILE…`: no mode word, every operand a file
        self._each_operand(program, operands, name, recursive, view, place)
        if program.members_below:  # `unzip A.zip MEMBER -d DIR`: the members named land below DIR
            member_writes(self.ledger, parsed, program.members_below, place, name)
        if name == "chmod" and not recursive and len(operands) > 1 and tightens(operands[0]):
            _private(self.ledger, operands[0], len(operands) - 1)
        if name == "chmod" and len(operands) > 1 and keeps_access(operands[0]):
            for effect in self.ledger.effects[-(len(operands) - 1) :]:
                if effect["op"] == "chmod":
                    effect["keeps_access"] = True

    def _each_operand(
        self, program: Program, operands: list[str], name: str, recursive: bool, view: CommandView, place: Place
    ) -> None:
        last = len(operands) - 1
        for k, word in enumerate(operands):
            op = program.operands
            if k == 0 and program.first:
                op = program.first
            elif k > 0 and program.rest:
                op = program.rest
            if k == last and k > 0 and program.last:
                op = program.last
            if op and op != "none":
                placed = place(word)
                path = str(placed.get("path") or "")
                # `mkdir -p`, `touch` leave what the line made, or what is there already, as it was
                fresh = bool(path) and not self.ledger.made(path) and not os.path.lexists(path)
                self.apply(op, placed, name, recursive, view)
                if op == "write" and program.makes_empty and fresh:
                    self.ledger.emptied.add(path)

    def apply(self, op: str, placed: Mapping[str, Any], name: str, recursive: bool, view: CommandView) -> None:
        raw = str(placed.get("raw", ""))
        if raw.startswith(("<(", ">(")) or (raw == "-" and op in ("read", "write", "write-fetched")):
            return  # a pipe from commands that are judged themselves; `-` is stdin or stdout
        if op == "write-fetched":
            effect = self.ledger.add("write", placed, name)
            if effect["path"]:
                self.ledger.produce(effect["path"], "fetch")
                self.ledger.contents.pop(effect["path"], None)
            return
        if op == "device":
            path = str(placed.get("path") or "")
            self.ledger.add(
                "device", placed, name, block=path.startswith("/dev/") or _dynamic(str(placed.get("raw", "")))
            )
            return
        if op == "write-tree":  # `unzip -d DIR`: what it writes lands anywhere below DIR
            self.ledger.add("write", placed, name, recursive=True)
            return
        if op == "use":  # a key or certificate the program authenticates with: read, never printed
            self.ledger.add("read", placed, name, uses=True)
            return
        if op == "exec-file":  # (one the line itself wrote, fetched or decoded is code made up on the spot)
            path = str(placed.get("path") or "")
            flow = self.ledger.made(path) if path else ""
            made: dict[str, Any] = {"flow": flow, "known": False} if flow else {}
            self.ledger.add("exec", placed, name, code={"lang": name, "text": ""}, **made)
            return
        if op == "list" or op in ("read", "write", "delete", "chmod"):
            effect = self.ledger.add(
                op, placed, name, recursive=recursive and op in ("delete", "chmod", "list", "read")
            )
            if op == "write" and effect["path"]:
                self.ledger.produce(effect["path"], "write")
                if name == "tee" and view.stdin == "text" and view.stdin_text is not None:  # what it copies
                    self.ledger.contents[effect["path"]] = view.stdin_text
                else:
                    self.ledger.contents.pop(effect["path"], None)

    def _transfer(
        self,
        op: str,
        operands: list[str],
        targets: list[str],
        place: Place,
        name: str,
        recursive: bool,
        sweeps: bool,
        file_only: bool = True,
    ) -> None:
        if targets:
            sources, destination = operands, targets[-1]
        elif len(operands) >= 2:
            sources, destination = operands[:-1], operands[-1]
        else:
            sources, destination = operands, ""
        to = _named(op, destination, place, file_only) if destination else None
        into = to is not None and _a_directory(destination, to, bool(targets), file_only)
        landed = False
        for source in sources:
            placed = place(source)
            entry = _entry(source, destination, place) if into else None
            effect = self.ledger.add(op, placed, name, recursive=recursive, to=entry or to)
            if entry is not None:  # `cp x/.bashrc ~/`: the directory's entry of the source's name is written
                self.ledger.add("write", entry, name, recursive=recursive, target_of=op)
            # `rsync -a SRC/ ~/`, `cp -rT SRC ~`: SRC's files land below the destination
            copied = op == "copy" and recursive and entry is None and (file_only or names_contents(source))
            self._land_contents(source if copied else "", str(placed.get("path") or ""), destination, place, name)
            landed = landed or entry is None
            if op == "move" and effect["to"] and effect["path"]:
                self.ledger.moved[effect["to"]] = placed
            if op in ("copy", "move") and to is not None and effect["to"]:
                made = self.ledger.made(effect["path"])
                if made:
                    self.ledger.produce(effect["to"], made)
                    if effect["path"] in self.ledger.contents:
                        self.ledger.contents[effect["to"]] = self.ledger.contents[effect["path"]]
        if to is not None and (landed or not sources):
            self.ledger.add("write", to, name, recursive=recursive, target_of=op)
            self._replaced(op, to, sources, place, name)
            if sweeps:  # `rsync --delete`: what the sources lack is deleted from the destination
                self.ledger.add("delete", to, name, recursive=True, sweep=True)

    def _replaced(self, op: str, to: dict[str, Any], sources: list[str], place: Place, name: str) -> None:
        """What the destination holds after a copy or move onto it: nothing of its own (`cp /dev/null F`: F's
        content is lost, and F is empty for a later `mv F G`), or what the sources hold."""
        path = str(to.get("path") or "")
        if (op in ("copy", "move") and holds_nothing_of_its_own(self.ledger, sources, place)) or (
            op == "link" and links_to_nothing(self.ledger, sources, place)
        ):
            self.ledger.add("delete", to, name, emptied=True)
            self.ledger.emptied.add(path)
        else:
            self.ledger.emptied.discard(path)  # `touch a && cp b a && mv a F`: a holds b's text

    def _land_contents(self, word: str, source: str, destination: str, place: Place, name: str) -> None:
        """`rsync -a ~/Downloads/dots/ ~/`: each file below the source is written at its path below the destination."""
        if not word or not destination or not os.path.isdir(source):
            return
        files, complete = landed_files(source)
        for relative in files:
            self.ledger.add("write", place(f"{destination.rstrip('/')}/{relative}"), name, target_of="copy")
        if not complete:
            unlisted = {"raw": f"<files below {source}>", "path": "", "in_project": False}
            self.ledger.add("write", unlisted, name, known=False)

    def _transfers(
        self,
        program: Program,
        parsed: Parsed,
        operands: list[str],
        name: str,
        recursive: bool,
        view: CommandView,
        place: Place,
    ) -> None:
        """A copy, move or link of the operands to the last one or the target option's directory, or to or from
        another host (`scp f HOST:`)."""
        sweeps = any(o in program.target_deletes for o, _ in parsed.options)
        if remote_copy(self.ledger, program, operands, place, name, (recursive, sweeps)):
            return
        targets = [v for o, v in parsed.options if o in program.target_options and v is not None]
        given = {o for o, _ in parsed.options}
        file_only = bool(given & _NO_TARGET_DIRECTORY) or (
            bool(given & _NO_DEREFERENCE) and program.operands == "link" and _is_link(operands[-1:], place)
        )
        kind = "link" if given & program.link_options else program.operands  # `cp -s F D`: D a link to F
        self._transfer(kind, operands, targets, place, name, recursive, sweeps, file_only)
        if program.operands == "copy":
            self._copied_stdin(operands, targets, view, place)

    def _copied_stdin(self, operands: list[str], targets: list[str], view: CommandView, place: Place) -> None:
        """`printf … | install -m 755 /dev/stdin t.sh`, `… | cp /dev/stdin t.sh`: the file holds what the pipe
        carried, made as that was (the known text it printed; a download or a decoding stays one)."""
        sources = operands if targets else operands[:-1]
        destination = targets[-1] if targets else (operands[-1] if len(operands) > 1 else "")
        if not destination or STDIN_FILES.isdisjoint(sources):
            return
        path = str(place(destination).get("path") or "")
        if not path:
            return
        self.ledger.produce(path, view.stdin if view.stdin in ("fetch", "decode") else "write")
        if view.stdin == "text" and view.stdin_text is not None:
            self.ledger.contents[path] = view.stdin_text
        else:
            self.ledger.contents.pop(path, None)

    def find(self, argv: list[str], place: Place, name: str, view: CommandView, option_ops: Mapping[str, str]) -> None:
        for k, word in enumerate(argv[:-1]):  # `-fprint FILE`: an action that writes FILE
            op = option_ops.get(word)
            if op:
                self.apply(op, place(argv[k + 1]), name, False, view)
        roots, follows = find_roots(argv)
        deletes = "-delete" in argv
        for root in roots or ["."]:  # a delete of what its tests select below the root (`sweep`)
            extra: dict[str, Any] = {"sweep": True} if deletes else {}
            placed = place(root)
            self.ledger.add("delete" if deletes else "list", placed, name, recursive=True, **extra)
            for target in linked_roots(str(placed.get("path") or "")) if follows and deletes else ():
                unknown = {"raw": root, "path": "", "in_project": False}  # (links past what was walked)
                self.ledger.add("delete", place(target) if target else unknown, name, recursive=True, **extra)

    def unread_words(
        self, argv: list[str], skip: set[str], name: str, place: Place, start: int, *, network: bool
    ) -> None:
        """Knowing a program does not make its unknown options safe: a path in any of its words that no effect of
        the command has (`curl --json @F`, `exiftool "-Comment<=F"`, `cmake -E cat F`, `gh gist create F`, `put F`
        in a file-transfer client's `-c` script) may be read; asked (`guess`). A network program handed a file's
        content for a value (`@F`, `<F`) sends it: an upload. `skip`: its words that are code or a pattern."""
        covered = {str(e.get(k) or "") for e in self.ledger.effects[start:] for k in ("raw", "path")}
        covered |= {str(e["to"]).rpartition("/")[0] for e in self.ledger.effects[start:] if e.get("to")}  # `cp f DIR/`
        for k, word in enumerate(argv[1:], start=1):
            if word in skip or word in covered or _URL.match(word) or word.startswith("//"):  # (a share: //host/x)
                continue
            if word.startswith("-") and "=" not in word:
                continue  # an option's name (its value, in the next word, is judged there)
            if _LOADS_ENVIRONMENT.search(word.partition("=")[0] if word.startswith("-") else argv[k - 1]):
                continue  # `--env-file F` (docker, compose, node, bun, uv): loaded into the program's environment,
                # never printed by the option itself; what prints the environment is judged as such
            for token in word.split() if " " in word and not _CODE_WORD.search(word) else (word,):
                path, content = _path_in(token)
                if not path or path in covered:
                    continue
                if len(covered) > MAX_GUESSED:  # past this, one read whose target is not known (asked): cost bound
                    self.ledger.add("read", {"raw": "${many_paths}", "path": ""}, name, guess=True)
                    return
                placed = place(path)
                if str(placed.get("path") or "") in covered:
                    continue
                covered.add(path)
                if network and content:
                    self.ledger.add("read", placed, name, upload=True)
                else:
                    self.ledger.add("read", placed, name, guess=True)

    def guess(self, argv: list[str], name: str, place: Place, writes: bool = False) -> None:
        """A program the catalogue does not know: each operand that may be a path may be read (or written)."""
        if name in _INERT:
            return
        for word in argv[1:]:
            value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if value and not value.startswith("-") and may_name_a_file(value) and not _URL.match(value):
                self.ledger.add("write" if writes else "read", place(value), name, guess=True)


_FILE_FUNCTIONS = frozenset({"file-read", "file-write"})  # GTFOBins functions that reach files
MAX_GUESSED = 512  # paths of one command's unread words placed (each resolves against the file system)

# A path inside an argument word, after the marks programs use to take a file's content for a value: `@file`
# (curl --json, gh, httpie), `<=file` and `<file` (exiftool's tag from a file, curl -F), `key=file`, `--opt=file`;
# it starts as paths do (`/`, `~`, `.`) or names a directory (`config/.env`), and holds nothing a shell or code
# would (quotes, brackets, `$`, globs are judged elsewhere)
_PATH_CHARS = re.compile(r"(?:[~./]|[\w-]+/)[^\s'\"(){}\[\]<>|;&*?$`,:]*")


_CODE_WORD = re.compile(r"[(){};|&$`]")  # a word that is code or a command line, not a list of words
# an option that loads a dotenv file into the environment of what the program runs: https://docs.docker.com/
# reference/cli/docker/container/run/#env, https://nodejs.org/api/cli.html#--env-fileconfig, https://bun.sh/docs/
# runtime/env, https://docs.astral.sh/uv/reference/cli/#uv-run--env-file
_LOADS_ENVIRONMENT = re.compile(r"^--?env[-_]?file$", re.IGNORECASE)


def _path_in(token: str) -> tuple[str, bool]:
    """The path a word gives after its last mark (`=`, `@`, `<`), or the whole word ("" when it is not one), and
    whether the mark takes the file's content for the value (`@`, `<`). Linear: one scan from the end, one match."""
    cut = max(token.rfind("="), token.rfind("@"), token.rfind("<"))
    path = token[cut + 1 :]
    if len(path) > 4096 or path in (".", "..", "/", "./", "~") or _PATH_CHARS.fullmatch(path) is None:
        return "", False
    return path, cut >= 0 and token[cut] in "@<"


_OCTAL = re.compile(r"^0*([0-7]?)([0-7])([0-7])([0-7])$")
_CLAUSE = re.compile(r"^([ugoa]*)([-+=])([rwxXst]*)$")


def tightens(mode: str) -> bool:
    """`chmod MODE` leaves the owner able to read and gives the group and others nothing, with no set-id or sticky
    bit (`600`, `400`, `700`, `go-rwx`, `u=rw,go=`): the file becomes private, nothing more can read or run it
    than before (coreutils' chmod: https://www.gnu.org/software/coreutils/manual/html_node/chmod-invocation.html,
    the modes OpenSSH requires of ~/.ssh: https://man.openbsd.org/ssh#FILES)."""
    octal = _OCTAL.match(mode)
    if octal is not None:
        special, owner, group, other = (int(d) if d else 0 for d in octal.groups())
        return special == 0 and owner & 4 == 4 and group == 0 and other == 0
    clauses = [_CLAUSE.match(clause) for clause in mode.split(",")]
    return bool(clauses) and all(c is not None and _private_clause(*c.groups()) for c in clauses)


def keeps_access(mode: str) -> bool:
    """`chmod MODE` leaves the owner able to read, write and enter what it changes, and gives no one else write
    (`u+w`, `755`, `a+rX`, `go-w`): whoever owns it (the agent, and hookd with it: its log, its runtime directory)
    can still read and write it, and no one who could not before can change it (coreutils' chmod, "Symbolic
    Modes" and "Numeric Modes"). A mode that takes anything from the owner (`000`, `a-r`, `a-w`, `644` on a
    directory) or gives write to others (`777`, `o+w`, `+w`: the umask's to decide) does not keep it."""
    octal = _OCTAL.match(mode)
    if octal is not None:
        special, owner, group, other = (int(d) if d else 0 for d in octal.groups())
        return special == 0 and owner == 7 and group & 2 == 0 and other & 2 == 0
    clauses = [_CLAUSE.match(clause) for clause in mode.split(",")]
    return bool(clauses) and all(c is not None and _access_kept(*c.groups()) for c in clauses)


def _access_kept(who: str, op: str, perms: str) -> bool:
    others = not who or bool(set(who) & {"g", "o", "a"})  # no `who`: every class the umask leaves
    owner = not who or bool(set(who) & {"u", "a"})
    if op == "-":
        return not owner or not set(perms) & {"r", "w", "x", "X"}
    if op == "+":
        return not (others and "w" in perms) and (who == "u" or set(perms) <= {"r", "x", "X", "w"})
    return not (others and "w" in perms) and (not owner or ({"r", "w"} <= set(perms) and bool(set(perms) & {"x", "X"})))


def _private_clause(who: str, op: str, perms: str) -> bool:
    if who and set(who) <= {"g", "o"}:
        return op == "-" or (op == "=" and perms == "")
    if who == "u" and op == "-":
        return "r" not in perms
    return who == "u" and set(perms) <= {"r", "w"} and (op == "+" or "r" in perms)


def _keeps_exec_off(mode: str) -> bool:
    """No execute bit for the owner either (`600`, not `700`; a private symbolic mode adds none): on a file,
    nothing runs it that did not; on a directory, execute is the right to enter it."""
    octal = _OCTAL.match(mode)
    return octal is None or int(octal.group(2)) & 1 == 0


# coreutils: `-T` treats the destination as a file; `ln -n` replaces a link to a directory rather than entering it
_NO_TARGET_DIRECTORY = frozenset({"-T", "--no-target-directory"})
_NO_DEREFERENCE = frozenset({"-n", "--no-dereference"})


def _is_link(words: list[str], place: Place) -> bool:
    placed = place(words[0]) if words else {}
    path = str(placed.get("raw") or "")  # as written: `path` is where the link leads
    return path.startswith("/") and os.path.islink(path.rstrip("/"))


def _named(op: str, destination: str, place: Place, file_only: bool) -> dict[str, Any]:
    """Where a transfer lands: the destination as placed (through links: `cp` writes through one), but for a
    link or a move onto an existing link to a file, or to a directory when the destination is no directory to
    enter (`ln -sfn`, `mv -T`: `file_only`), that link itself, which `ln -sf` and `mv` replace (ln(1), rename(2))
    while what it pointed at stays as it was."""
    placed = place(destination)
    parent, _, leaf = destination.rstrip("/").rpartition("/")
    if op not in ("link", "move") or not leaf or leaf in (".", ".."):
        return placed
    where = place(parent or ("/" if destination.startswith("/") else "."))
    own = f"{str(where.get('path') or '').rstrip('/')}/{leaf}"
    if not where.get("path") or not os.path.islink(own) or (os.path.isdir(own) and not file_only):
        return placed
    return {**where, "path": own, "raw": destination}


def _a_directory(destination: str, to: Mapping[str, Any], target_option: bool, file_only: bool) -> bool:
    """The destination of a copy, move or link is a directory the sources land in (coreutils' cp, mv, ln, and
    the programs that copy as they do): named by `-t`, written with a trailing `/`, or one on disk now."""
    if file_only:
        return False
    path = str(to.get("path") or "")
    return target_option or destination.endswith("/") or (bool(path) and os.path.isdir(path))


def _entry(source: str, destination: str, place: Place) -> dict[str, Any] | None:
    """The directory's entry a source lands as, under its own name; None when that name is only known at run time
    or the source names a directory's contents (`dir/`, `dir/.`: rsync's way), which stay a write of the
    directory."""
    base = source.rpartition("/")[2]
    if not base or base in (".", "..") or _dynamic(base) or has_glob(base):
        return None
    return place(f"{destination.rstrip('/') or '/'}/{base}")


def option_execs(
    files: FileEffects, program: Program, parsed: Parsed, name: str, view: CommandView, place: Place
) -> None:
    """A launcher's options that load a code file (`gdb -x FILE -p PID`); what it launches is walked apart."""
    for option, value in parsed.options:
        if program.option_ops.get(option) == "exec-file" and value is not None:
            files.apply("exec-file", place(value), name, False, view)


def _private(ledger: Ledger, mode: str, count: int) -> None:
    """The chmod effects of the last `count` operands made private (`tightens`; see tightens())."""
    for effect in ledger.effects[-count:]:
        if effect["op"] == "chmod" and (_keeps_exec_off(mode) or os.path.isdir(str(effect["path"]))):
            effect["tightens"] = True
