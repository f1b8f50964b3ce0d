"""What a command hands a program that its catalogue entry has no table for (docs/policies.md, "What cannot be
known is asked"): paths in words no effect of the command has (`FileEffects.unread_words`), code handed to a
program GTFOBins knows runs commands where the entry says nowhere how, and output "files" that are pipes into a
command (`strace -o '|CMD'`)."""

from __future__ import annotations

import re

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.engines import runs_container
from hookd.enrich.effects.files import FileEffects
from hookd.enrich.effects.handed import handed_commands, piped_commands, shell_escapes
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.loaded import file_commands
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import _NOTHING, SHELLS, _dynamic, _file_operands

# Programs hookd has no entry for whose words only name things (builtins, finders of programs and manuals): a path
# among them is not opened
_NAMES_ONLY = frozenset(
    {"alias", "unalias", "set", "trap", "which", "type", "whereis", "basename", "dirname", "command", "builtin",
     "help", "hash", "man", "info", "apropos", "whatis", "realpath", "readlink", "mkdir", "rmdir", "touch"}
)  # fmt: skip


def unread(
    files: FileEffects, program: Program | None, parsed: Parsed | None, view: CommandView, at: tuple[Place, int]
) -> None:
    """The paths in the command's words that none of its effects (from index `at[1]`) has (FileEffects.unread_words);
    what a launcher runs is judged as its own command, `find`'s words are tests."""
    place, start = at
    if view.name in _NAMES_ONLY:  # (catalogued too: fish's `set -U` has an entry, bash's `set -- ARGS` reads nothing)
        return
    if program is None or parsed is None:
        files.unread_words(view.argv, set(), view.name, place, start, network=False)
        return
    if program.launcher is not None or program.find or runs_container(program, view.argv):
        return
    if (module := _module_argv(view.argv)) and module[0] in program.modules:  # walked as the program it maps to
        return
    network = program.network or program.operands in ("fetch", "fetch-first")
    # (a command line the shell builder walks as a command of its own, `script -c CMD`'s, is judged there; a single
    # word it hands on may still be a file this program reads: `parallel echo :::: KEY` reads KEY)
    skip = _code_words(program, parsed) | _script_words(view.name, parsed) | {w for w in view.handed if _is_line(w)}
    skip |= _placed_words(program, parsed)
    files.unread_words(view.argv, skip, view.name, place, start, network=network)
    if view.stdin == "text" and view.stdin_text and _options_on_stdin(program, parsed):
        # `curl -K -`: its options come on stdin (`upload-file = "…"`), their files as any word's
        words = view.stdin_text.replace('"', " ").replace("'", " ").split()
        files.unread_words(["", *words], set(), view.name, place, start, network=network)


def _module_argv(argv: list[str]) -> list[str]:
    """The module and its arguments of `python3 [opts] -m MODULE ARGS…` (`-m` alone or ending a cluster: `-Im`)."""
    for k, word in enumerate(argv[1:], start=1):
        if not word.startswith("-"):
            return []
        if word == "-m" or (len(word) > 2 and word[1] != "-" and word.endswith("m")):
            return argv[k + 1 :]
    return []


def _is_line(word: str) -> bool:
    return any(blank in word for blank in " \t\n")


def piped(ledger: Ledger, view: CommandView, follow: Followups) -> None:
    """`strace -o '|CMD' …` (a wrapper's words too): an output "file" that pipes into a command runs it; so does
    one a program's entry says names a command by its prefix (Ghostscript's `%pipe%CMD`: `pipe_prefixes`)."""
    texts = piped_commands([*view.peeled, *view.argv])
    for text in _prefixed_commands(catalogue().get(view.name), view.argv) if view.argv else ():
        texts += [text] * (text not in texts)
    for text in texts:
        ledger.add("exec", None, view.name, code={"lang": "sh", "text": text}, known=not _dynamic(text))
        follow.scripts.append(text)


def _prefixed_commands(program: Program | None, argv: list[str]) -> list[str]:
    """The command each word or option value (`-sOutputFile=%pipe%lpr`) names after one of the program's pipe
    prefixes: its output is piped into it, whatever the command is."""
    prefixes = program.pipe_prefixes if program is not None else ()
    values = [w.partition("=")[2] if w.startswith("-") and "=" in w else w for w in argv[1:]]
    return [v[len(p) :].strip() for v in values for p in prefixes if v.startswith(p) and v[len(p) :].strip()]


def untabled_code(ledger: Ledger, view: CommandView, follow: Followups) -> None:
    """A program GTFOBins knows runs commands, where hookd has no table of how (`debugfs`, `ftp`): a command
    line among its words is judged as an unknown program's are (EffectModel._unknown), and the text its stdin
    gives is code in its own language, not known, whose `!CMD` lines (the shell escape of such command
    languages) are walked as shell command lines. A word a spawned command is handed (`docker run -v … img sh -c
    '…'`) is walked there, with what its mounts make of its paths, not again here as unknown code."""
    handed_words(ledger, [w for k, w in enumerate(view.argv) if k == 0 or w not in view.handed], view.name, follow)
    if view.stdin == "text" and view.stdin_text:
        code = {"lang": view.name, "text": view.stdin_text}
        ledger.add("exec", None, view.name, code=code, known=False, handed=True)
        follow.scripts.extend(shell_escapes("ed", view.stdin_text))


def fed_text(ledger: Ledger, view: CommandView, follow: Followups) -> None:
    """A text fed on stdin to a program the catalogue does not know (`echo "PATH MASK CMD" | incrontab -`, a
    Brewfile piped to `brew bundle --file=-`): hookd cannot know what the program does with it, so command lines
    the text holds (loaded.file_commands: lines, settings, string literals, substitutions) are code handed to it:
    asked, and walked as scripts, as a command line among its words is."""
    if view.stdin != "text" or not view.stdin_text or view.name in _NOTHING or _DESCRIPTOR.fullmatch(view.name):
        return  # (`exec {fd}<<<…` holds the text on a descriptor: the shell builder follows it to its reader)
    commands = file_commands(view.stdin_text)
    if commands:
        ledger.add("exec", None, view.name, code={"lang": "text", "text": view.stdin_text}, known=False, handed=True)
        follow.scripts.extend(commands)


def handed_words(ledger: Ledger, argv: list[str], name: str, follow: Followups) -> None:
    for text in handed_commands(argv):
        ledger.add("exec", None, name, code={"lang": "sh", "text": text}, known=False, handed=True)
        follow.scripts.append(text)


def runs_without_table(program: Program) -> bool:
    """GTFOBins knows the program runs commands (`shell`, `command`), and hookd's entry says nowhere how."""
    return (
        not program.runs
        and program.launcher is None
        and not program.find  # (`find -exec`'s command: the shell builder walks it with what `{}` stands for)
        and not (program.script_operand or program.stdin_lang or program.code_file_lang or program.subcommand_ops)
        and not program.schedules  # (what `at` is fed runs later: judged as such)
        and not program.gtfobins.isdisjoint(_RUNS_COMMANDS)
    )


_RUNS_COMMANDS = frozenset({"shell", "command"})
_DESCRIPTOR = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")  # `exec {fd}<…`: a descriptor bash opens, no program
WALKED_INLINE = frozenset({"eval", "su", "trap"})  # the shell builder walks their code itself (shell.wrappers)


def _options_on_stdin(program: Program, parsed: Parsed) -> bool:
    """An option that names a file the program reads, given `-` (stdin): `curl -K -`, `wget -i -`."""
    return any(value == "-" and program.option_ops.get(option) == "read" for option, value in parsed.options)


def _script_words(name: str, parsed: Parsed) -> set[str]:
    """The words a shell runs as its own script, which the shell's walk judges command by command: `eval`'s,
    `sh -c`'s first operand. Not files (`eval 'ssh-add ~/.ssh/k'` does not read `./~/.ssh/k`)."""
    if name == "eval":
        return set(parsed.operands)
    if name in SHELLS and parsed.operands and any(option == "-c" for option, _ in parsed.options):
        return {parsed.operands[0]}
    return set()


def _placed_words(program: Program, parsed: Parsed) -> set[str]:
    """A directory option's value (`tar -C DIR`, `make -C DIR`) is where the program works, not a file it reads; an
    archiver's names after it are judged where they land, below DIR (tar.py), not again in the cwd."""
    directories = {v for o, v in parsed.options if o == "--directory" and v}
    return directories | set(parsed.operands) if directories and program.archive else directories


def _code_words(program: Program, parsed: Parsed) -> set[str]:
    """The words of a command that are code or a pattern, not files: a code or pattern operand (`grep PATTERN`,
    `awk PROGRAM`), the value of an option that gives code (`sed -e SCRIPT`, `python -c CODE`)."""
    code = set(parsed.operands) - set(_file_operands(program, parsed))
    options = program.code_options | {h.option for h in program.runs if h.kind == "option"}
    return code | {v for o, v in parsed.options if v is not None and (o in options or o in program.pattern_options)}
