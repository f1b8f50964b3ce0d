"""What a program runs (docs/policies.md, "The effect model"): code handed by an option, an operand, the
environment or stdin; a script file, with the flow that made it when the line wrote, fetched or decoded it."""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from hookd.enrich.effects.catalogue import Hook, Program, catalogue
from hookd.enrich.effects.configtext import _recipes, make_runs_only_recipes
from hookd.enrich.effects.direnv import direnv_settings, envrc_environment
from hookd.enrich.effects.handed import (
    CODE_OPTIONS,
    is_command_line,
    literal_commands,
    shell_escapes,
)
from hookd.enrich.effects.languages import follow_code
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.projectcode import leads, loaded_files, project_code, project_lines, settled_lines
from hookd.enrich.effects.projectruns import runner_lines
from hookd.enrich.effects.stdin_files import fed_script
from hookd.enrich.effects.words import (
    _SECRET_HINT,
    SHELLS,
    STDIN_FILES,
    _code_by_option,
    _code_operands,
    _dynamic,
    _short_spellings,
    prints_own_code,
    reads_script_from_stdin,
)
from hookd.enrich.package_sources import foreign_source
from hookd.enrich.sourced import sourced_text

# a value that is more than a word or a file name (`main.tex` handed to `pdflatex --shell-escape` is a file)
_CODE_LIKE = re.compile(r"""[\s(){}\[\]!;|&$`"'<>%\\]""")


def _code_handed(program: Program, parsed: Parsed) -> bool:
    """The line hands the program its code (`psql -c SQL`, `sqlite3 DB SQL`): it reads none from its stdin; or
    its code operand's hook reads the stdin already (`sqlite3 DB`: CodeRuns._stdin_operand)."""
    operands = _code_operands(program, parsed)
    return _code_by_option(program, parsed) or any(
        h.kind == "operand" and (h.index < len(operands) or (bool(h.lang) and 0 < h.index == len(operands)))
        for h in program.runs
    )


def _command_line(value: str, form: str) -> str:
    """The command line of a hook's value: as written, or an argv given as a list: `comma` (`gcc -wrapper
    sh,-c,CMD`), or `dbus`, a D-Bus address's `path=P,argv1=A,…` in any order, values %-escaped (argv0 is the
    name the program is told, not what runs; https://dbus.freedesktop.org/doc/dbus-specification.html); `rest`: the
    value is the program, its arguments the words after `--` (added by the caller)."""
    if form == "comma":
        return shlex.join(value.split(","))
    if form == "dbus":
        pairs = dict(pair.partition("=")[::2] for pair in value.split(","))
        numbered = sorted((int(k[4:]), unquote(v)) for k, v in pairs.items() if k[:4] == "argv" and k[4:].isdigit())
        return shlex.join([unquote(pairs.get("path", "")), *(arg for n, arg in numbered if n > 0)])
    return value


class CodeRuns:
    """The exec effects of one line, recorded into its ledger; what is to be walked goes to `Followups`."""

    __slots__ = ("ledger", "literal", "own_path")

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        # the command finds programs on the PATH it was given (no PATH set on its line): a tool's own setup
        # code it prints (`eval "$(kubectl completion bash)"`) is the installed tool's, not a planted one's
        self.own_path = True
        # the command's words whose `$` were quoted on the line: shell code in one is known text, its `$` the
        # running shell's own (`trap 'rm -rf "$tmp"' EXIT`), not an expansion that builds it
        self.literal: frozenset[str] = frozenset()

    def hooks(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        for hook in program.runs:
            if hook.kind == "option" and parsed.operands[: len(hook.subcommands)] == list(hook.subcommands):
                self._option_hook(
                    program, parsed, hook, view, follow
                )  # (`npm exec -c`: npm's other commands ignore it)
            elif hook.kind == "operand":
                operands = _code_operands(program, parsed)
                if hook.index < len(operands) and not any(o in program.code_options for o, _ in parsed.options):
                    self._handed(program.name, operands[hook.index], hook, follow, code=True)
                elif hook.lang and 0 < hook.index == len(operands) and view.stdin != "none":
                    self._stdin_operand(program.name, hook, view, follow)
            elif hook.kind == "env":
                self._env_hook(program.name, hook, view, follow)
            elif hook.kind == "shell-args" and "--" in view.argv:  # `capsh -- -c CMD`: bash runs with the rest
                rest = view.argv[view.argv.index("--") + 1 :]
                self._handed(program.name, shlex.join(["bash", *rest]), hook, follow)
            elif hook.kind == "argv-code" and parsed.operands[: len(hook.subcommands)] == list(hook.subcommands):
                text = " ".join(parsed.operands[len(hook.subcommands) :])
                self._handed(program.name, text, Hook("option", code=True, lang=hook.lang), follow, code=True)
            elif hook.kind in ("command-code", "after-word"):  # (`mlr --icsv put -q EXPR F`: each verb's EXPR)
                for text in _command_code(parsed.operands, hook.subcommands, after=hook.kind == "after-word"):
                    self._handed(program.name, text, Hook("option", code=True, lang=hook.lang), follow, code=True)
            elif hook.kind == "words" and len(view.argv) > 1:  # `eval WORDS`: the words joined are the code
                words = view.argv[2:] if view.argv[1] == "--" else view.argv[1:]
                self._handed(program.name, " ".join(words), hook, follow, code=True, made=view.substituted)
        self._code_words(program, parsed, view, follow)

    def _env_hook(self, name: str, hook: Hook, view: CommandView, follow: Followups) -> None:
        value = view.env.get(hook.name)
        if value is None:
            return
        value = value.lstrip(hook.leading) if hook.leading else value  # `LESSOPEN='|lesspipe %s'`: after the mark
        self._handed(name, value, hook, follow)
        self._fed(value, hook, view, follow)

    def run_code(self, name: str, text: str, lang: str, follow: Followups) -> None:
        """`text` is code in `lang` that `name` runs (an environment variable's value: PERL5DB)."""
        self._handed(name, text, Hook("option", code=True, lang=lang), follow, code=True)

    def _stdin_operand(self, name: str, hook: Hook, view: CommandView, follow: Followups) -> None:
        """A program given every operand but its code (`sqlite3 DB`, `sg GROUP`) reads that code from its
        standard input: known text (`printf '.shell …' | sqlite3 :memory:`) is the code; a download is unknown code."""
        if view.stdin == "text" and view.stdin_text:
            self._handed(name, view.stdin_text, hook, follow, code=True)
        elif view.stdin in ("fetch", "decode"):  # (a dump a program prints is data, as a file redirected is)
            self.stdin_code(name, view.stdin)

    def _option_hook(self, program: Program, parsed: Parsed, hook: Hook, view: CommandView, follow: Followups) -> None:
        for option, value in parsed.options:
            if option != hook.option or value is None:
                continue
            if hook.setting:
                self._setting_hook(program, value, hook, view, follow)
                continue
            if hook.code and hook.derived and hook.lang in catalogue().languages:
                # GTFOBins' prefix (`system("`, `%(`) shows one way in; a language hookd has a table for is read
                # whole, its commands and string literals in place
                self._handed(program.name, value, hook, follow, made=view.substituted)
            elif value.startswith(hook.prefix):
                text = _bound_output(_command_line(value[len(hook.prefix) :], hook.argv), hook, parsed)
                if hook.argv == "rest" and "--" in view.argv:  # `start-stop-daemon -x PROG -- ARGS`: PROG's own
                    text = shlex.join([text, *view.argv[view.argv.index("--") + 1 :]])
                self._handed(program.name, text, hook, follow, made=view.substituted)
                self._fed(text, hook, view, follow)
            elif hook.code and hook.derived and _CODE_LIKE.search(value):
                # GTFOBins shows one way to run a command through the option (`rpm --eval '%(…)'`); the option
                # takes any code of the language (`%{lua:os.execute(…)}`), not that prefix
                self._handed(program.name, value, hook, follow)

    def _setting_hook(self, program: Program, value: str, hook: Hook, view: CommandView, follow: Followups) -> None:
        """A configuration setting given on the command line (`apt-get -o 'DPkg::Pre-Install-Pkgs::=CMD'`): any
        key, in any case, whose value reads as a command line is one the program may run (not only the keys
        another hook names by prefix, which judges those itself)."""
        if any(h.kind == "option" and h.option == hook.option and h.prefix and value.startswith(h.prefix)
               for h in program.runs):  # fmt: skip
            return
        _key, equals, text = value.partition("=")
        if equals and is_command_line(text):
            self._handed(program.name, text, hook, follow)
            self._fed(text, hook, view, follow)

    def _fed(self, text: str, hook: Hook, view: CommandView, follow: Followups) -> None:
        """A command line handed to a program that is a shell or interpreter reading its script on stdin
        (`split --filter=/bin/sh`, `tar --to-command=bash`): it runs what the program feeds it, which hookd does
        not see (the program's input, an archive's files): unknown code; the line's own text fed to the program
        is walked too, as what it most likely runs."""
        if hook.code:
            return
        try:
            argv = shlex.split(text)
        except ValueError:
            return
        if not reads_script_from_stdin(argv):
            return
        self.stdin_code(argv[0].rsplit("/", 1)[-1], view.stdin if view.stdin not in ("none", "text") else "unknown")
        if view.stdin == "text" and view.stdin_text:
            follow.scripts.append(view.stdin_text)

    def _code_words(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        """Code in a file an option names (`make -f FILE`), or in a `+CMD` operand (`vim +CMD`)."""
        if program.code_file_lang:
            for value in program.code_files(parsed.options):
                self._code_file(program, value, view, follow)
        if program.stdin_lang and view.stdin == "text" and view.stdin_text and not _code_handed(program, parsed):
            # `printf '!cmd\nq\n' | ed`, `psql <<'EOF'`: the same lexer as the code an option hands (`psql -c`)
            self._handed(program.name, view.stdin_text, Hook("option", code=True, lang=program.stdin_lang), follow)
        if program.bare_commands and (not parsed.operands or parsed.operands[0] in _INPUT_SOURCES):
            self._bare_commands(program.name, parsed.operands, view, follow)
        if program.plus_code:
            for word in parsed.operands:
                if word.startswith("+") and len(word) > 1:
                    self._handed(program.name, word[1:], Hook("option", code=True, lang=program.plus_code), follow)

    def _bare_commands(self, name: str, operands: list[str], view: CommandView, follow: Followups) -> None:
        """`parallel` given no command: each input is a command line, the words after `:::` or each line of its
        stdin (walked when the line shows it, else code hookd cannot see)."""
        given = [w for w in operands if w not in _INPUT_SOURCES]
        if given and operands[0] == ":::":
            for text in given:
                self._handed(name, text, Hook("option", code=True, lang="sh"), follow)
        elif view.stdin == "text" and view.stdin_text:
            self._handed(name, view.stdin_text, Hook("option", code=True, lang="sh"), follow)
        elif not given:
            self.stdin_code("sh", view.stdin if view.stdin in ("fetch", "decode") else "unknown")

    def _handed(
        self, name: str, text: str, hook: Hook, follow: Followups, *, code: bool = False, made: str = ""
    ) -> None:
        """`text` is run by `name`: a command line (parsed as one) or code in hook.lang; `made`: what the
        substitutions in it print, when fetched or decoded (`eval "$(curl …)"`)."""
        if hook.code or code:
            lang = hook.lang or name
            if lang == "socat":  # an address: only EXEC:/SYSTEM: run a command (socat(1), "ADDRESS TYPES")
                for command in shell_escapes(lang, text):
                    self._handed(name, command, Hook("option", code=True, lang="sh"), follow)
                return
            if lang == "sh" and not hook.same_shell:  # (what the shell runs in place, the builder walks itself)
                follow.scripts.append(text)
            elif lang != "sh" and follow.code is None:
                follow.code = (lang, text)
            follow.scripts.extend(shell_escapes(lang, text))
            if lang == "make":  # `make --eval TEXT`: a makefile, whose recipes are shell command lines
                self.ledger.add(
                    "exec", None, name, code={"lang": lang, "text": text}, known=make_runs_only_recipes(text)
                )
                follow.scripts.extend(_recipes(text))
                return
            if lang != "sh":
                self._inline(name, lang, text, follow, made)
                return
            # shell code holding an expansion is built when the shell runs it (`eval "$x"`, `sh -c "$x"`); a process
            # substitution in it is code the walk reads like the rest (`eval 'diff <(sort a) <(sort b)'`)
            expands = "$" in text or "`" in text
            built = expands and text not in self.literal and not (self.own_path and prints_own_code(text))
            extra = {"flow": made, "through": "substitution"} if built and made else _built(built)
            self.ledger.add("exec", None, name, code={"lang": lang, "text": text}, known=not built, **extra)
            return
        built = _dynamic(text.split(" ", 1)[0])
        self.ledger.add("exec", None, name, code={"lang": "sh", "text": text}, known=not built, **_built(built))
        follow.scripts.append(text)

    def handed_code(self, name: str, text: str, hook: Hook, follow: Followups) -> None:
        """`text` is code in hook.lang that `name` runs (read from a file: code_files.py)."""
        self._handed(name, text, hook, follow)

    def _inline(self, name: str, lang: str, text: str, follow: Followups, made: str = "") -> None:
        """Code in another language (`$` there is its own: `awk '{print $1}'`): the shell commands it runs as
        literals are exec effects of their own, walked as scripts; the files its calls name as literals are
        walked as the commands that touch them the same way; it is `known` when nothing else in it reaches the
        system (languages.json). Code the shell builds from a command substitution that downloads or decodes
        (`perl -e "$(wget -qO- …)"`) is that code (`flow`); another substitution's output (`sed "s/V/$(git
        describe)/"`) is a value in code read as written."""
        if made in ("fetch", "decode") and "$(" in text and text not in self.literal:
            code = {"lang": lang, "text": text}
            self.ledger.add("exec", None, name, code=code, known=False, flow=made, through="substitution")
            return
        followed = follow_code(lang, text)
        self.ledger.add("exec", None, name, code={"lang": lang, "text": text}, known=followed.known)
        # a language hookd has no table for: the command lines its string literals spell are walked too
        literal = literal_commands(text) if not followed.known and not followed.commands else []
        for command in (*followed.commands, *literal):
            built = _dynamic(command.split(" ", 1)[0])
            self.ledger.add("exec", None, name, code={"lang": "sh", "text": command}, known=not built, **_built(built))
            follow.scripts.append(command)
        follow.scripts.extend(followed.files)  # `rm -r -f -- dist`: judged as itself

    def _code_file(self, program: Program, value: str, view: CommandView, follow: Followups) -> None:
        """`make -f FILE`, `awk -f FILE`: the code is in FILE; on stdin, it is what stdin gives."""
        lang = program.code_file_lang
        if value in STDIN_FILES:
            text = view.stdin_text if view.stdin == "text" else None
            if text is None:
                self.stdin_code(program.name, view.stdin if view.stdin != "none" else "unknown")
                return
            if lang != "make":  # its commands and file calls walked as code handed on the line (`sftp -b - <<EOF`)
                self._handed(program.name, text, Hook("option", code=True, lang=lang), follow)
                return
            known = make_runs_only_recipes(text)
            self.ledger.add("exec", None, program.name, code={"lang": lang, "text": text}, known=known)
            follow.scripts.extend(_recipes(text))

    def package_dirs(self, program: Program, parsed: Parsed, place: Place) -> None:
        """`pip install DIR`, `npm install DIR`: the package's own code runs (setup.py, a build backend, lifecycle
        scripts); in a directory the line itself wrote or decoded into, that is code made up on the spot, which
        hookd does not follow (`flow`). A package fetched (`git clone … && pip install ./r`) is what installing
        from a registry does anyway: not flagged; nor a directory the line made empty (`mkdir -p config && pip
        install -e .`: no file of the line's is in it, its package code is the project's own)."""
        words = parsed.operands
        for subcommand in program.builds:
            if words[: len(subcommand)] != list(subcommand):
                continue
            for word in words[len(subcommand) :]:
                path = str(place(word).get("path") or "").rstrip("/")
                flow = _made_in(self.ledger, path) if path and not _dynamic(word) else ""
                if flow in ("write", "decode"):
                    code = {"lang": "sh", "text": ""}
                    self.ledger.add("exec", place(word), program.name, code=code, known=False, flow=flow)

    def run_file(
        self,
        placed: Mapping[str, Any],
        name: str,
        lang: str,
        follow: Followups,
        *,
        sourced: bool = False,
        script: bool = False,
    ) -> None:
        """A file run as a program or script: a file the line wrote with known text is parsed (shell) or read as
        inline code when an interpreter runs it as its script (`cat > t.py <<'EOF' … EOF; python t.py` is `python -
        <<'EOF'`; not a file a variable has every program load, `NODE_OPTIONS='--require f.js'`); one it
        downloaded, decoded or wrote otherwise is code hookd cannot see (`flow`). A project file the shell
        sources (`sourced`) is read and parsed too: what it sets, later commands see (enrich/sourced.py)."""
        path = str(placed.get("path") or "")
        raw = str(placed.get("raw", ""))
        if raw.startswith(("<(", ">(")) or path in STDIN_FILES:
            return
        flow = self.ledger.made(path) if not _dynamic(raw) else ""
        text = self.ledger.contents.get(path) if flow == "write" else None
        read = None
        if text is None and sourced and not flow and lang == "sh" and not _dynamic(raw):
            text = read = sourced_text(path, self.ledger.project)
        if text is not None and script and lang in catalogue().languages:  # the text is the code, as on stdin
            self._handed(name, text, Hook("option", code=True, lang=lang), follow)
            return
        if text is not None and lang == "sh":
            # an `.envrc` runs with direnv's stdlib (`direnv allow`; plain bash has none of its functions): a
            # project dotenv file it loads goes into the environment, never shown (effects/direnv.py)
            follow.scripts.append(direnv_settings(path, text) if read is not None else text)
            self.ledger.add("exec", placed, name, code={"lang": lang, "text": text}, **_left_in_the_shell(path, text))
            return
        known = not flow and not _dynamic(raw)
        extra: dict[str, Any] = {"flow": flow} if flow else _built(_dynamic(raw))  # `source "$F"`: built
        self.ledger.add("exec", placed, name, code={"lang": lang, "text": ""}, known=known, **extra)
        if known:  # a project script: what it does by literals is the line's (projectcode.py)
            follow.scripts.extend(project_code(path, lang, self.ledger.project))

    def stdin_code(self, name: str, origin: str) -> None:
        """A shell or interpreter runs what its stdin gives, which is not known text."""
        extra: dict[str, Any] = {"flow": origin, "through": "stdin"} if origin in ("fetch", "decode") else {}
        self.ledger.add(
            "exec", None, name, code={"lang": "sh" if name in SHELLS else name, "text": ""}, known=False, **extra
        )

    def script(self, program: Program, parsed: Parsed, view: CommandView, place: Place, follow: Followups) -> None:
        """A shell or interpreter: its first operand is the script it runs (unless code came by an option)."""
        for loaded in loaded_files(program.script_operand, parsed, place):  # `python -m pkg.mod`, `ruby -rlib`
            if not self.ledger.made(loaded):
                follow.scripts.extend(project_code(loaded, program.script_operand, self.ledger.project))
        options = {o for o, _ in parsed.options}
        tabled = program.runs or program.script_operand == "sh"  # (with no table, `-c CODE` is read by _code_given)
        if (program.script_operand == "sh" and "-c" in options) or (tabled and "-c" in _short_spellings(view.argv)):
            return
        if any(h.kind == "option" and h.option in options for h in program.runs):
            return
        if tabled and ("-c" in options or "-m" in options):
            return
        if not parsed.operands or parsed.operands[0] in STDIN_FILES or options & program.stdin_script_options:
            self._stdin_script(program, view, follow)
            return
        first = parsed.operands[0]
        given = _code_given(view.argv, first) if not program.runs and program.script_operand != "sh" else None
        if given is not None:  # `erl -eval CODE`, `racket -e CODE`: an interpreter whose entry has no option table
            self._handed(view.name, given, Hook("option", code=True, lang=program.script_operand), follow)
            return
        if first.startswith("<(") and self.own_path and prints_own_code(first):  # `source <(kubectl completion bash)`
            self.ledger.add("exec", None, view.name, code={"lang": program.script_operand, "text": ""})
            return
        if first.startswith(("<(", ">(")):
            self.ledger.add(
                "exec",
                None,
                view.name,
                code={"lang": program.script_operand, "text": ""},
                known=False,
                flow=view.substituted or "substitution",
                through="substitution",
            )
            return
        sourced = view.name in (".", "source")
        self.run_file(place(first), view.name, program.script_operand, follow, sourced=sourced, script=True)
        language = catalogue().languages.get(program.script_operand)
        prints = language.get("prints_input", False) if language is not None else program.script_operand not in SHELLS
        if "file-read" in program.gtfobins and prints:
            # a macro processor's input (`m4 FILE`, GTFOBins' file-read): what it does not expand, it prints
            self.ledger.add("read", place(first), view.name, guess=True)
        for word in parsed.operands[1:]:
            if _SECRET_HINT.search(word) and not word.startswith("-"):
                self.ledger.add("read", place(word), view.name, guess=True)

    def _stdin_script(self, program: Program, view: CommandView, follow: Followups) -> None:
        """An interpreter given no script runs what its standard input gives: known text (a here-document, an
        echo piped in) is its code (`python3 - <<EOF`; a shell's the builder walks), a file fed is its script."""
        if program.script_operand != "sh" and view.stdin == "text" and view.stdin_text:
            hook = Hook("option", code=True, lang=program.script_operand)
            self._handed(view.name, view.stdin_text, hook, follow)
        if (fed := fed_script(program, view)) is not None:
            self.run_file(fed, view.name, program.script_operand, follow, script=True)


def _code_given(argv: list[str], first: str) -> str | None:
    """The code an interpreter is handed by an option spelled the way interpreters spell "run this" (`-e`,
    `--eval`, `-eval`: handed.CODE_OPTIONS), when its entry has no option table and the parser took the code
    for the first operand (`racket -e '(system …)'`); None when the first operand is a script file."""
    for k in range(1, len(argv)):
        option, eq, value = argv[k].partition("=")
        if eq and option in CODE_OPTIONS:
            return value
        if (argv[k] in CODE_OPTIONS or argv[k].lower() in CODE_OPTIONS) and k + 1 < len(argv):
            return argv[k + 1] if argv[k + 1] == first else None
        if argv[k] == first:
            return None
    return None


def _made_in(ledger: Ledger, path: str) -> str:
    """How the line made what is at or below `path` (write, fetch, decode), what it made empty aside, unless
    something else of the line's lands in it later (`mkdir p && tar xzf x.tgz -C p`, `cp -r d/. p`)."""
    inside = (
        how for made, how in ledger.produced.items() if made.startswith(path + "/") and made not in ledger.emptied
    )
    return next(inside, "") or ("" if left_empty(ledger, path) else ledger.made(path))


def left_empty(ledger: Ledger, path: str) -> bool:
    """The line made `path` an empty directory (`mkdir -p d`) and put nothing in it since."""
    return path in ledger.emptied and not _filled(ledger, path)


def _filled(ledger: Ledger, path: str) -> bool:
    """A write at or below `path` by a program that does not only make it empty (an extraction, a copy, a move)."""
    return any(
        e["op"] == "write"
        and not ((program := catalogue().get(str(e.get("program") or ""))) is not None and program.makes_empty)
        and (str(e["path"]) == path or str(e["path"]).startswith(path.rstrip("/") + "/"))
        for e in ledger.effects
    )


def _built(built: bool) -> dict[str, Any]:
    """`built`: what runs (the program word, the script named, the shell code handed) is made by an expansion
    only when the shell runs it."""
    return {"built": True} if built else {}


_INPUT_SOURCES = frozenset({":::", "::::", ":::+", "::::+"})  # GNU parallel's input separators


def implicit_code(
    ledger: Ledger, program: Program, parsed: Parsed, place: Place, follow: Followups, argv: list[str]
) -> None:
    """`printf … > build.rs && cargo build`: a source file of its working directory the program compiles and runs
    without being given it (the catalogue's `implicit`), written by this very line: code in its language, judged
    by that language's table (languages.json). A file the line did not write is the project's own, as always.
    (Files a tool reads as commands, a Makefile or a justfile, are loaded.py's `implicit_files`.) The command
    lines of the project's configuration a subcommand runs (`project_runs`: `terraform apply`'s provisioners,
    `docker compose up`'s services) are walked as the line's own, as a project script's literals are."""
    for words, kinds in program.project_runs:
        if leads(words, argv):
            lines, complete = project_lines(kinds, argv, place, ledger)
            run, read = runner_lines(kinds, words, parsed, place, ledger.project)
            follow.scripts.extend(lines + settled_lines(run))
            if not (complete and read):  # code the line runs that hookd did not read
                ledger.add("exec", None, program.name, code={"lang": "sh", "text": ""}, known=False)
    for words, names, lang in program.implicit:
        if parsed.operands[: len(words)] != list(words) or any(o in program.code_options for o, _ in parsed.options):
            continue
        for name in names:
            placed = place(name)
            path = str(placed.get("path") or "")
            if ledger.made(path) != "write":
                continue
            text = ledger.contents.get(path)
            known = text is not None and follow_code(lang, text).known
            ledger.add("exec", placed, program.name, code={"lang": lang, "text": text or ""}, known=known, flow="write")


# npm's package specs that are no registry name: a tarball or git URL, or a hosted repository's shorthand
# (`github:o/r`, `gitlab:`, `bitbucket:`, `gist:`: https://docs.npmjs.com/cli/v10/using-npm/package-spec), which bun,
# pnpm and yarn read as npm does
# a package index's URL, with the protocol a manager may put before the scheme (cargo's `sparse+https://…`)
_INDEX_URL = re.compile(r"^(?:[a-z]+\+)?(?:https?|ftp)://", re.IGNORECASE)
_URL = re.compile(r"^(?:(?:git\+)?(?:https?|ftp)://|git\+ssh://|(?:github|gitlab|bitbucket|gist):\w)", re.IGNORECASE)
_REPOSITORY = re.compile(r"^(?:(?:git\+)?(?:https?|ftp|ssh|git)://|[\w.-]+@[\w.-]+:)", re.IGNORECASE)  # git's URLs too


def is_url_script(word: str) -> bool:
    """`word` is a URL a runtime or package runner downloads and runs (the catalogue's `url_scripts`)."""
    return _URL.match(word) is not None


def is_fetched_source(word: str) -> bool:
    """`word`, the value of a `url_options` option, names where code is fetched from: a URL or a repository."""
    return _REPOSITORY.match(word) is not None or _URL.match(word) is not None


def names_fetched_source(program: Program, words: list[str]) -> bool:
    """`words` (a launcher's own options) give one of the program's `url_options` a fetched source (`uvx --from
    git+https://…`, `npx --package=https://…/x.tgz`, `gem install --source URL`)."""
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
        if name in program.url_options and value and is_fetched_source(value):
            return True
    return False


def url_scripts(ledger: Ledger, program: Program, parsed: Parsed, env: Mapping[str, str]) -> None:
    """`deno run -A https://…/mod.ts`, `uv run https://…/x.py`: a runtime given a URL as its script downloads the
    code and runs it at once (the catalogue's `url_scripts`), as `curl URL | sh` does; a package manager given a
    package by URL (`url_packages`) runs that package's install scripts or build, and one given a package source
    (`index_options`), on its command line or in its environment (`PIP_INDEX_URL=URL pip install x`), fetches
    every package from there."""
    fetched = [v for o, v in parsed.options if o in program.url_options and v and is_fetched_source(v)]
    for option, value in [*parsed.options, *option_variables(program, env)]:  # `pip install --extra-index-url URL`
        config = program.index_options.get(option)
        if config and value and _INDEX_URL.match(value) and foreign_source(value, config, ledger.project):
            fetched.append(value)
    for words in program.url_scripts:
        operands = parsed.operands[len(words) :] if parsed.operands[: len(words)] == list(words) else []
        if operands and _URL.match(operands[0]):
            fetched.append(operands[0])
    for words in program.url_packages:  # `npm install https://…/x.tgz`: a package file fetched and its scripts run
        if parsed.operands[: len(words)] == list(words):
            fetched += [o for o in parsed.operands[len(words) :] if _package_file_url(o)]
    for url in fetched[:1]:  # `ansible-pull -U URL`: the repository's playbook, fetched and run here
        ledger.add("fetch", None, program.name, url=url)
        ledger.add("exec", None, program.name, code={"lang": program.name, "text": ""}, known=False, flow="fetch")


def option_variables(program: Program, env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The options the program reads from its environment (`index_variables`: `npm_config_registry` is npm's
    `--registry`, `UV_DEFAULT_INDEX` uv's `--default-index`)."""
    found: list[tuple[str, str]] = []
    for pattern, option in program.index_variables.items() if env else ():
        for name, value in env.items():
            match = re.fullmatch(pattern, name)
            if match is not None:
                named = option.replace("{}", (match.group(1) if match.groups() else "").lower().replace("_", "-"))
                found.append((named, value))
    return found


# A repository's URL (`git+https://…`, `git+ssh://…`, `https://host/o/r.git`, `github:o/r`) installs a project from
# its source, as `git clone … && pip install ./r` does (`package_dirs`: not flagged, like a registry's package); a URL
# of a package file (a tarball, a wheel, a zip) from anywhere is a download whose scripts then run, as `curl … | sh`.
_VCS_URL = re.compile(
    r"^(?:git\+|git://|ssh://|[\w.-]+@[\w.-]+:|(?:github|gitlab|bitbucket|gist):)|\.git(?:[#@].*)?$", re.IGNORECASE
)


def _package_file_url(word: str) -> bool:
    return _URL.match(word) is not None and _VCS_URL.search(word.split("?", 1)[0]) is None


def property_command(program: Program, argv: list[str], follow: Followups) -> None:
    """`mvn exec:exec -Dexec.executable=sh -Dexec.args='-c "…"'`: a build tool told by two properties which
    program to run and with what arguments (the catalogue's `property_command`) runs that command line."""
    key, args_key = program.property_command
    if not key:
        return
    values = dict(w[2:].split("=", 1) for w in argv[1:] if w.startswith("-D") and "=" in w)
    if values.get(key):
        follow.scripts.append(f"{shlex.quote(values[key])} {values.get(args_key, '')}".strip())


def _bound_output(text: str, hook: Hook, parsed: Parsed) -> str:
    """`split --filter='gzip > $FILE.gz' big.csv data/part_`: the command runs with FILE set to each piece's
    name, the output prefix and a suffix; a command that names the variable is walked with it set."""
    if len(hook.binds) != 2 or not re.search(rf"\$\{{?{hook.binds[0]}\b", text):
        return text
    prefix = parsed.operands[-1] if len(parsed.operands) >= 2 else hook.binds[1]
    return f"{hook.binds[0]}={shlex.quote(prefix + 'aa')}; {text}"


def _command_code(operands: list[str], commands: tuple[str, ...], *, after: bool = False) -> list[str]:
    """The code of a build tool's commands given as operands, each command with its argument in one word (`sbt
    'eval EXPR'`, `sbt "set name := …"`, `sbt ';clean ;eval EXPR'`): what follows a command that evaluates its
    argument, to the word's end (a `;` inside the code is the code's own); `after`: the word after the command."""
    if after:
        return [code for word, code in itertools.pairwise(operands) if word in commands]
    if not commands:
        return []
    pattern = re.compile(r"(?:^|;)\s*(?:" + "|".join(map(re.escape, commands)) + r")\s+(\S.*)", re.DOTALL)
    return [m.group(1) for m in map(pattern.search, operands) if m]


def _left_in_the_shell(path: str, text: str) -> dict[str, Any]:
    """An `.envrc` run (`direnv allow`): direnv exports its settings into the user's shell for every later command,
    as a startup file's are; settings that load code there are a deferred start (asked, `startup`), and the
    variables set are judged as a startup file's `sets` (hookd.selfprotect_later)."""
    if path.rsplit("/", 1)[-1] != ".envrc":
        return {}
    loads, sets = envrc_environment(path, text)
    return {**({"deferred": True, "startup": path} if loads else {}), **({"sets": sets} if sets else {})}
