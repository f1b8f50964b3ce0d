"""The effects of one shell command, from the catalogue (docs/policies.md, "The effect model").

`EffectModel` is fed every command the shell builder walks, in order, and keeps what the line has done so
far (the files it wrote or downloaded, and their text when known), so that a later command that runs one
of them is judged with it: a FLOW within the line. For each command it appends effect objects to
`effects` and returns what else the command runs: shell scripts to parse as one level deeper, and code in
another language to show as `inline`. Linear in the words: one pass over each argv, lookups in dicts.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.enrich.effects.catalogue import Hook, Program, catalogue
from hookd.enrich.effects.fetches import fetch_effects
from hookd.enrich.effects.gitops import git_effects
from hookd.enrich.effects.handed import (
    WALKED_BY_THE_SHELL,
    handed_commands,
    is_command_line,
    launched_words,
    shell_escapes,
)
from hookd.enrich.effects.opened import opened_effects
from hookd.enrich.effects.options import Parsed, parse
from hookd.enrich.effects.tar import tar_effects
from hookd.enrich.effects.words import (
    _DECODERS,
    _ENVIRONMENT_PRINTERS,
    _INERT,
    _NOTHING,
    _SECRET_HINT,
    _URL,
    SHELLS,
    STDIN_FILES,
    XARGS_INPUT,
    _code_operands,
    _dynamic,
    _file_operands,
    _fixed_place,
    _has_words,
    _recipes,
    _short_spellings,
    _stdout_trees,
    _uploaded_file,
    printed_environment,
)
from hookd.enrich.facts import arg_class, tree_of, under

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


class EffectModel:
    __slots__ = ("_listed", "_previous", "_trees", "contents", "effects", "home", "produced", "project")

    def __init__(self, *, home: str, project: str) -> None:
        self.home = home.rstrip("/") or "/"
        self.project = project.rstrip("/") or "/"
        self.effects: list[dict[str, Any]] = []
        self.produced: dict[str, str] = {}  # path -> how the line made it: write, fetch, decode
        self.contents: dict[str, str] = {}  # path -> its text, when the line wrote known text
        self._listed: list[dict[str, Any]] = []  # what the command being judged lists (find, ls, git ls-files)
        self._previous: list[dict[str, Any]] = []  # what the command before it listed: the names xargs reads
        self._trees: list[dict[str, Any]] = []  # what the command before it read whole and wrote to its stdout

    # ----------------------------------------------------------------------------------------------
    # Building effects

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
        raw = str(placed.get("raw", "")) if placed else ""
        if XARGS_INPUT in raw and self._previous and op != "list":
            return self._from_listing(op, program, raw)
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
            if dynamic:
                effect["fixed"] = _fixed_place(raw, str(placed.get("path") or ""), self.project)
        if code is not None:
            effect["code"] = dict(code)
        if url:
            effect["url"] = url
        effect.update(extra)
        self.effects.append(effect)
        for match in placed.get("matches", ()) if placed and op != "list" else ():  # what a glob matches now
            inside = {"raw": match, "path": match, "in_project": under(match, self.project)}
            self.effects.append(
                {**effect, "path": match, "raw": match, "glob": raw, "class": self.classify(inside, match)}
            )
        if op == "list" and placed:
            self._listed.append(dict(placed))
        return effect

    def _sent(self, program: Program, parsed: Parsed, name: str, view: CommandView) -> None:
        """A network program sending its stdin (`curl -T -`, `nc host port`, `ssh host …`), when the command
        before it wrote a whole tree there (`tar c . | curl -T - URL`): the tree is read and sent."""
        if view.stdin != "tree" or not self._trees:
            return
        sends = (
            program.network
            or program.remote_command
            or any(value in ("-", "@-") or (value or "").endswith("=@-") for _, value in parsed.options)
        )
        if sends and (program.network or program.operands in ("fetch", "fetch-first") or program.remote_command):
            for placed in self._trees:
                self.add("read", placed, name, recursive=True, sent=True)

    def _from_listing(self, op: str, program: str, raw: str) -> dict[str, Any]:
        """`find DIR … | xargs cat`: the names on stdin are what the command before listed, somewhere in DIR."""
        effect: dict[str, Any] = {}
        for placed in self._previous:
            effect = self.add(op, placed, program, recursive=True, from_stdin=True)
        return effect

    def classify(self, placed: Mapping[str, Any], tree: str) -> str:
        return arg_class(placed, tree or str(placed.get("path") or ""), home=self.home, project=self.project)

    # ----------------------------------------------------------------------------------------------
    # One command

    def command(self, view: CommandView, place: Place) -> Followups:
        self._previous, self._listed = self._listed, []
        trees, self._trees, start = self._trees, [], len(self.effects)
        follow = Followups()
        name, argv = view.name, view.argv
        if view.sudo:
            self.add("privilege", None, name or "sudo")
        for redirect in view.redirects:
            self._redirect(redirect, name, view)
        if not argv:
            return follow
        if " " in argv[0] and is_command_line(argv[0]):  # `devbox run 'rm -rf ~'`: a launcher's shell line
            follow.scripts.append(" ".join([argv[0], shlex.join(argv[1:])]).strip())
            return follow
        if _dynamic(argv[0]):
            self.add("exec", None, argv[0], known=False, code={"lang": "sh", "text": ""})
            return follow
        if name in _ENVIRONMENT_PRINTERS:
            self._environment(name, argv)
        if name in _NOTHING and "/" not in argv[0]:
            return follow  # its words are not files, and it runs nothing it is handed
        program = catalogue().get(name)
        if name == "git":
            git = git_effects(argv, view.env, view.variables, place, self)
            follow.scripts.extend(git.scripts)
            return follow
        if "/" in argv[0] and (program is None or name not in SHELLS):
            self._run_file(place(argv[0]), name, "sh", follow)
        if program is None:
            self._unknown(argv, name, place, follow)
            return follow
        parsed = parse(argv, program.table)
        self._hooks(program, parsed, view, follow)
        self._operands(program, parsed, argv, view, place, follow)
        self._program_effects(program, parsed, argv, place)
        follow.origin = self._origin(program, parsed, name, view)
        self._trees, mine = trees, self._trees
        self._sent(program, parsed, name, view)
        self._trees = mine
        mine.extend(_stdout_trees(self.effects[start:]))
        if mine:
            follow.origin = "tree"
        return follow

    def _unknown(self, argv: list[str], name: str, place: Place, follow: Followups) -> None:
        """A program the catalogue does not know: a command line it is handed is unknown code (asked, and walked
        as a script), words it may run as a command are walked as one, operands that may be paths may be read."""
        if name not in WALKED_BY_THE_SHELL:
            for text in handed_commands(argv):
                self.add("exec", None, name, code={"lang": "sh", "text": text}, known=False, handed=True)
                follow.scripts.append(text)
            launched = launched_words(argv)
            if launched:  # `op run -- rm -rf ~`: the words it may run, walked as their own command
                follow.scripts.append(shlex.join(launched))
        self._guess(argv, name, place)

    def _program_effects(self, program: Program, parsed: Parsed, argv: list[str], place: Place) -> None:
        """What the program does whatever its operands: privileges, signals, credentials it prints."""
        if program.privilege:
            self.add("privilege", None, program.name)
        if program.signal and program.signal != "none":
            self._signal(program, parsed)
        for words, store in program.prints_secret:
            if _has_words(argv, words):
                placed = place(store.replace("~", self.home, 1)) if store else None
                self.add("read", placed, program.name, secret_output=True)

    def _environment(self, name: str, argv: list[str]) -> None:
        variables = printed_environment(name, argv)
        if variables is not None:  # asked (`guess`): debugging prints it too
            environ = {"raw": "/proc/self/environ", "path": "/proc/self/environ", "in_project": False}
            self.add("read", environ, name, guess=True, variables=variables)

    def _origin(self, program: Program, parsed: Parsed, name: str, view: CommandView) -> str:
        if program.operands in ("fetch", "fetch-first") or program.network:
            writes = any(program.option_ops.get(o) == "write-fetched" for o, _ in parsed.options)
            return "unknown" if writes else "fetch"
        if name in _DECODERS:
            return "decode"
        if name in ("cat", "tac", "head", "tail") and view.stdin in ("fetch", "decode"):
            return view.stdin
        return "unknown"

    def _redirect(self, redirect: Mapping[str, Any], name: str, view: CommandView) -> None:
        op = str(redirect.get("op") or "")
        if redirect.get("path") is None:
            return
        placed = {"raw": redirect.get("target"), "path": redirect.get("path"), "in_project": redirect.get("in_project")}
        if ">" in op:
            effect = self.add("write", placed, name or "shell")
            if str(placed["path"]).startswith("/dev/") and effect["known"]:
                self.add("device", placed, name or "shell")
            self._produce(effect, view, name)
        if "<" in op and op not in ("<<", "<<-", "<<<"):
            self.add("read", placed, name or "shell")

    def _produce(self, effect: Mapping[str, Any], view: CommandView, name: str) -> None:
        path = str(effect.get("path") or "")
        if not path:
            return
        if (name in ("echo", "printf") and view.stdin_text is not None) or (
            name in ("cat", "tee") and view.stdin in ("text",) and view.stdin_text is not None
        ):
            self.produced[path] = "write"
            self.contents[path] = view.stdin_text
        else:
            kind = view.stdin if view.stdin in ("fetch", "decode") else "write"
            catalogued = catalogue().get(name)
            if catalogued is not None and (catalogued.operands == "fetch" or catalogued.network):
                kind = "fetch"
            elif name in _DECODERS:
                kind = "decode"
            self.produced[path] = kind
            self.contents.pop(path, None)

    # ----------------------------------------------------------------------------------------------
    # What a program runs

    def _hooks(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        for hook in program.runs:
            if hook.kind == "option":
                for option, value in parsed.options:
                    if option == hook.option and value is not None and value.startswith(hook.prefix):
                        self._handed(program.name, value[len(hook.prefix) :], hook, follow)
            elif hook.kind == "operand":
                operands = _code_operands(program, parsed)
                if hook.index < len(operands) and not any(o in program.code_file_options for o, _ in parsed.options):
                    self._handed(program.name, operands[hook.index], hook, follow, code=True)
            elif hook.kind == "env":
                value = view.env.get(hook.name)
                if value is not None:
                    self._handed(program.name, value, hook, follow)
            elif hook.kind == "argv-code" and parsed.operands[: len(hook.subcommands)] == list(hook.subcommands):
                text = " ".join(parsed.operands[len(hook.subcommands) :])
                self._handed(program.name, text, Hook("option", code=True, lang=hook.lang), follow, code=True)
        self._code_words(program, parsed, view, follow)

    def _code_words(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        """Code in a file an option names (`make -f FILE`), or in a `+CMD` operand (`vim +CMD`)."""
        if program.code_file_lang:
            for option, value in parsed.options:
                if option in program.code_file_options and value is not None:
                    self._code_file(program, value, view, follow)
        if program.stdin_lang and view.stdin == "text" and view.stdin_text:  # `printf '!cmd\nq\n' | ed`
            self._handed(program.name, view.stdin_text, Hook("option", code=True, lang=program.stdin_lang), follow)
        if program.plus_code:
            for word in parsed.operands:
                if word.startswith("+") and len(word) > 1:
                    self._handed(program.name, word[1:], Hook("option", code=True, lang=program.plus_code), follow)

    def _handed(self, name: str, text: str, hook: Hook, follow: Followups, *, code: bool = False) -> None:
        """`text` is run by `name`: a command line (parsed as one) or code in hook.lang."""
        if hook.code or code:
            lang = hook.lang or name
            if lang == "sh":
                follow.scripts.append(text)
            elif follow.code is None:
                follow.code = (lang, text)
            follow.scripts.extend(shell_escapes(lang, text))
            # `$` in another language's code is that language's own (`awk '{print $1}'`): the text is known
            self.add("exec", None, name, code={"lang": lang, "text": text}, known=lang != "sh" or not _dynamic(text))
            return
        self.add("exec", None, name, code={"lang": "sh", "text": text}, known=not _dynamic(text.split(" ", 1)[0]))
        follow.scripts.append(text)

    def _code_file(self, program: Program, value: str, view: CommandView, follow: Followups) -> None:
        """`make -f FILE`, `awk -f FILE`: the code is in FILE; on stdin, it is what stdin gives."""
        lang = program.code_file_lang
        if value in STDIN_FILES:
            text = view.stdin_text if view.stdin == "text" else None
            if text is None:
                self.stdin_code(program.name, view.stdin if view.stdin != "none" else "unknown")
                return
            self.add("exec", None, program.name, code={"lang": lang, "text": text})
            follow.scripts.extend(_recipes(text) if lang == "make" else [])
            if lang != "make" and follow.code is None:
                follow.code = (lang, text)

    def _run_file(self, placed: Mapping[str, Any], name: str, lang: str, follow: Followups) -> None:
        """A file run as a program or script: a file the line wrote with known text is parsed; one it
        downloaded, decoded or wrote otherwise is code hookd cannot see (`flow`)."""
        path = str(placed.get("path") or "")
        raw = str(placed.get("raw", ""))
        if raw.startswith(("<(", ">(")) or path in STDIN_FILES:
            return
        flow = self._made(path) if not _dynamic(raw) else ""
        text = self.contents.get(path) if flow == "write" else None
        if text is not None and lang == "sh":
            follow.scripts.append(text)
            self.add("exec", placed, name, code={"lang": lang, "text": text})
            return
        known = not flow and not _dynamic(raw)
        extra: dict[str, Any] = {"flow": flow} if flow else {}
        self.add("exec", placed, name, code={"lang": lang, "text": ""}, known=known, **extra)

    def _made(self, path: str) -> str:
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

    def stdin_code(self, name: str, origin: str) -> None:
        """A shell or interpreter runs what its stdin gives, which is not known text."""
        extra: dict[str, Any] = {"flow": origin} if origin in ("fetch", "decode") else {}
        self.add("exec", None, name, code={"lang": "sh" if name in SHELLS else name, "text": ""}, known=False, **extra)

    # ----------------------------------------------------------------------------------------------
    # What a program does with its operands

    def _operands(
        self, program: Program, parsed: Parsed, argv: list[str], view: CommandView, place: Place, follow: Followups
    ) -> None:
        name = program.name if program.name in SHELLS else view.name
        if program.launcher is not None:
            return  # what it launches is walked as its own command
        if program.script_operand:
            self._script(program, parsed, view, place, follow)
            if program.writes_in_place and any(o in program.writes_in_place for o, _ in parsed.options):
                by_option = any(h.kind == "option" and h.option == o for h in program.runs for o, _ in parsed.options)
                for word in parsed.operands[0 if by_option else 1 :]:  # `perl -pi -e CODE FILES`
                    self.add("write", place(word), name)
            return
        if program.find:
            self._find(argv, place, name)
            return
        self._files(program, parsed, argv, name, view, place)

    def _files(
        self, program: Program, parsed: Parsed, argv: list[str], name: str, view: CommandView, place: Place
    ) -> None:
        """The files a program reads, writes, deletes, copies… as its catalogue entry says."""
        recursive = program.recursive_always or any(o in program.recursive for o, _ in parsed.options)
        operands = _file_operands(program, parsed)
        self._option_values(program, parsed, name, recursive, view, place)
        if program.stdin_names and any(o in program.stdin_names for o, _ in parsed.options):
            self._stdin_names(view, place, name)
        opened_effects(self, program, parsed, operands, name, place)
        if program.keyword_ops:
            for word in operands:
                key, eq, value = word.partition("=")
                if eq and key in program.keyword_ops:
                    self._apply(program.keyword_ops[key], place(value), name, recursive, view)
        elif program.operands == "device" and any(o in program.device_read_only for o, _ in parsed.options):
            return
        elif program.operands in ("fetch", "fetch-first"):
            fetch_effects(self, program, parsed, operands, place, name)
        elif program.operands in ("copy", "move", "link"):
            targets = [v for o, v in parsed.options if o in program.target_options and v is not None]
            sweeps = any(o in program.target_deletes for o, _ in parsed.options)
            self._transfer(program.operands, operands, targets, place, name, recursive, sweeps)
        elif program.writes_in_place and any(o in program.writes_in_place for o, _ in parsed.options):
            for word in operands:
                self.add("write", place(word), name)
        elif program.archive and program.name == "tar":
            tar_effects(self, parsed, operands, place, name)
        else:
            self._each_operand(program, operands, name, recursive, view, place)
            if not program.operands and not program.first and program.gtfobins & {"file-read", "file-write"}:
                words = [name, *parsed.operands, *(v for o, v in parsed.options if v and o not in program.option_ops)]
                writes = "file-write" in program.gtfobins and "file-read" not in program.gtfobins
                self._guess(words, name, place, writes)

    def _stdin_names(self, view: CommandView, place: Place, name: str) -> None:
        """`cpio -o`: the files named on stdin are read, the words of known text or what the command before listed."""
        if view.stdin == "text" and view.stdin_text:
            for word in view.stdin_text.split():
                self.add("read", place(word), name)
        for placed in self._previous:
            self.add("read", placed, name, recursive=True, from_stdin=True)

    def _option_values(
        self, program: Program, parsed: Parsed, name: str, recursive: bool, view: CommandView, place: Place
    ) -> None:
        """Options whose value is a file read or written (`sort -o FILE`, `curl -d @FILE`)."""
        for option, value in parsed.options:
            op = program.option_ops.get(option)
            if op and value is not None:
                self._apply(op, place(value), name, recursive, view)
            if option in program.at_file_options and value:
                sent = _uploaded_file(value, option=option)
                if sent:
                    self.add("read", place(sent), name, upload=True)
        if program.at_file_args:  # httpie's request items: `@file`, `field@file`, `field=@file`, `field:=@file`
            for word in parsed.operands[1:]:
                sent = _uploaded_file(word)
                if sent:
                    self.add("read", place(sent), name, upload=True)

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
                self._apply(op, place(word), name, recursive, view)

    def _apply(self, op: str, placed: Mapping[str, Any], name: str, recursive: bool, view: CommandView) -> None:
        raw = str(placed.get("raw", ""))
        if raw.startswith(("<(", ">(")) or (raw == "-" and op in ("read", "write")):
            return  # a pipe from commands that are judged themselves; `-` is stdin or stdout
        if op == "write-fetched":
            effect = self.add("write", placed, name)
            if effect["path"]:
                self.produced[effect["path"]] = "fetch"
                self.contents.pop(effect["path"], None)
            return
        if op == "device":
            path = str(placed.get("path") or "")
            self.add("device", placed, name, block=path.startswith("/dev/") or _dynamic(str(placed.get("raw", ""))))
            return
        if op == "use":  # a key or certificate the program authenticates with: read, never printed
            self.add("read", placed, name, uses=True)
            return
        if op == "exec-file":
            self.add("exec", placed, name, code={"lang": name, "text": ""})
            return
        if op == "list" or op in ("read", "write", "delete", "chmod"):
            effect = self.add(op, placed, name, recursive=recursive and op in ("delete", "chmod", "list", "read"))
            if op == "write" and effect["path"]:
                self.produced[effect["path"]] = "write"
                self.contents.pop(effect["path"], None)

    def _transfer(
        self, op: str, operands: list[str], targets: list[str], place: Place, name: str, recursive: bool, sweeps: bool
    ) -> None:
        if targets:
            sources, destination = operands, targets[-1]
        elif len(operands) >= 2:
            sources, destination = operands[:-1], operands[-1]
        else:
            sources, destination = operands, ""
        to = place(destination) if destination else None
        for source in sources:
            placed = place(source)
            effect = self.add(op, placed, name, recursive=recursive, to=to)
            if op in ("copy", "move") and to is not None and effect["to"]:
                made = self._made(effect["path"])
                if made:
                    self.produced[effect["to"]] = made
                    if effect["path"] in self.contents:
                        self.contents[effect["to"]] = self.contents[effect["path"]]
        if to is not None:
            self.add("write", to, name, recursive=recursive, target_of=op)
            if sweeps:  # `rsync --delete`: what the sources lack is deleted from the destination
                self.add("delete", to, name, recursive=True, sweep=True)

    def _find(self, argv: list[str], place: Place, name: str) -> None:
        roots = []
        for word in argv[1:]:
            if word.startswith(("-", "(", "!", ")")):
                break
            roots.append(word)
        deletes = "-delete" in argv
        for root in roots or ["."]:  # a delete of what its tests select below the root (`sweep`)
            extra: dict[str, Any] = {"sweep": True} if deletes else {}
            self.add("delete" if deletes else "list", place(root), name, recursive=True, **extra)

    def _script(self, program: Program, parsed: Parsed, view: CommandView, place: Place, follow: Followups) -> None:
        """A shell or interpreter: its first operand is the script it runs (unless code came by an option)."""
        options = {o for o, _ in parsed.options}
        if (program.script_operand == "sh" and any(o in ("-c",) for o in options)) or "-" + "c" in _short_spellings(
            view.argv
        ):
            return
        if any(h.kind == "option" and h.option in options for h in program.runs) or "-m" in options or "-c" in options:
            return
        if not parsed.operands:
            return
        first = parsed.operands[0]
        if first.startswith(("<(", ">(")):
            self.add(
                "exec",
                None,
                view.name,
                code={"lang": program.script_operand, "text": ""},
                known=False,
                flow="substitution",
            )
            return
        if first in STDIN_FILES:
            return
        self._run_file(place(first), view.name, program.script_operand, follow)
        for word in parsed.operands[1:]:
            if _SECRET_HINT.search(word) and not word.startswith("-"):
                self.add("read", place(word), view.name, guess=True)

    def _signal(self, program: Program, parsed: Parsed) -> None:
        targets = parsed.operands
        if program.signal == "unit":  # `systemctl stop UNIT`, `service UNIT stop`: the other operands are units
            if not any(word in program.stop_words for word in targets):
                return
            targets = [word for word in targets if word not in program.stop_words]
        regex = program.signal == "regex" or any(o in program.regex_options for o, _ in parsed.options)
        for target in targets or [""]:
            self.add("signal", None, program.name, target=target, match="regex" if regex else program.signal)

    def _guess(self, argv: list[str], name: str, place: Place, writes: bool = False) -> None:
        """A program the catalogue does not know: each operand that may be a path may be read (or written)."""
        if name in _INERT:
            return
        for word in argv[1:]:
            value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if value and not value.startswith("-") and _SECRET_HINT.search(value) and not _URL.match(value):
                self.add("write" if writes else "read", place(value), name, guess=True)
