"""The shell line a notebook kernel's code amounts to (a cell's source, a Jupyter server's `execute_code`, text
typed into a running IPython): the code is read as IPython reads it before Python sees it, so each of IPython's
own ways of reaching the system is the command it runs (IPython's syntax: https://ipython.readthedocs.io/en/stable/
interactive/python-ipython-diff.html, its built-in magics: https://ipython.readthedocs.io/en/stable/interactive/
magics.html, the script magics: https://github.com/ipython/ipython/commit/88a82b5):

* a cell magic on the cell's first line: `%%bash`, `%%sh`, `%%!`, `%%sx`, `%%system` run the body in a shell,
  `%%script PROG` (and its named forms `%%perl`, `%%ruby`, `%%python3`, …) feed it to PROG, `%%writefile` and
  `%%file` write it to a file (`-a`: appended), the display magics (`%%html`, `%%latex`, …) only show it, and any
  other (`%%time`, `%%capture`) runs it as the kernel's code;
* a line `!CMD`, `!!CMD`, `x = !CMD`, or a line magic that runs a shell command (`%sx`, `%system`, `%sc`), a
  package manager (`%pip`, `%conda`) or a script (`%run`); other line magics configure the kernel only;
* IPython's own object in Python: `get_ipython().system(CMD)` and `.getoutput(CMD)` are what `!CMD` compiles to,
  `run_line_magic(NAME, ARGS)` and `run_cell_magic(NAME, LINE, BODY)` are a magic's line and cell, on the object
  or a name it was given to (`ip = get_ipython()`).

Before that, the cell is cleaned as IPython's input transformer cleans it (IPython.core.inputtransformer2:
`leading_empty_lines`, `PromptStripper` for `In [1]: `/`...: `/`>>> ` prompts, `assemble_continued_line` joining a
backslash continuation), a line magic is read as the magics manager runs it (`%alias NAME CMD` defines a line magic
running CMD, IPython's default aliases `%rm`, `%cp`, `%mv`, `%mkdir`, `%rmdir`, `%cat`, `%ls`… run those programs:
IPython.core.alias.default_aliases; `%cd DIR` moves where later shell lines run; `%env NAME=VALUE` sets their
environment), and a one-line cell's first word that names a magic runs it without its `%` (automagic, applied by
`InteractiveShell.transform_cell` to single-line cells only). A `%` magic not known here is unknown code (asked).

The rest is Python, judged as `python3 -c` of it; Python that does not parse runs nothing (a SyntaxError stops the
whole cell: prose given as a cell's source, a markdown cell's text), though its shell lines are still read.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import shlex

# The cell magics whose body a shell runs, the interpreters the script magics name, the display magics (the body
# is shown, not run) and the file magics (the body is written to the file the line names).
_SHELL_CELLS = frozenset({"bash", "sh", "zsh", "!", "sx", "system"})
_SCRIPT_CELLS = frozenset({"perl", "ruby", "python", "python2", "python3", "pypy", "node"})
_DISPLAY_CELLS = frozenset({"html", "HTML", "javascript", "js", "latex", "markdown", "svg"})
_FILE_CELLS = frozenset({"writefile", "file"})
_CELL = re.compile(r"\A[ \t]*%%(?P<name>!|[A-Za-z_][\w]*)(?P<args>[^\n]*)\n?")
# A line magic that runs a command: a shell line (`%sx`, `%system`, `%sc VAR=CMD`), a package manager, a script
_SHELL_LINE = re.compile(r"^(?:[A-Za-z_]\w*\s*=\s*)?(?:!!?|%(?:sx|system)\b|%sc\s+(?:-\w+\s+)*\w+\s*=)\s*(?P<cmd>.*)$")
_PROGRAM_LINE = re.compile(r"^(?:[A-Za-z_]\w*\s*=\s*)?%(?P<magic>pip|conda|run)\b\s*(?P<args>.*)$")
_PROGRAMS = {"pip": "python3 -m pip", "conda": "conda", "run": "python3"}
# The methods of IPython's shell object (`get_ipython()`) that hand their argument to a shell
_SHELL_METHODS = frozenset({"system", "getoutput", "system_raw", "system_piped"})
_MAGIC_METHODS = frozenset({"run_line_magic", "run_cell_magic", "magic"})
_MARK = "HOOKD_CELL"
# IPython.core.alias.default_aliases() on POSIX (`%l`: the whole argument line)
_DEFAULT_ALIASES = {
    "mkdir": "mkdir", "rmdir": "rmdir", "mv": "mv", "rm": "rm", "cp": "cp", "cat": "cat", "ls": "ls -F",
    "ll": "ls -F -o", "lf": "ls -F -o %l | grep ^-", "lk": "ls -F -o %l | grep ^l", "ldir": "ls -F -o %l | grep /$",
    "lx": "ls -F -o %l | grep ^-..x", "clear": "clear", "less": "less", "more": "more", "man": "man",
}  # fmt: skip
# The built-in line magics that only set the kernel up or show something (https://ipython.readthedocs.io/en/stable/
# interactive/magics.html); `%time`, `%timeit`, `%prun` run their argument as Python
_INERT_MAGICS = frozenset({
    "matplotlib", "load_ext", "reload_ext", "unload_ext", "autoreload", "aimport", "config", "precision", "pprint",
    "xmode", "who", "whos", "who_ls", "pwd", "history", "hist", "lsmagic", "magic", "quickref", "pinfo", "pinfo2",
    "pdoc", "pdef", "psource", "colors", "doctest_mode", "automagic", "autocall", "autoawait", "dhist", "dirs",
    "tb", "pdb", "gui", "connect_info", "page", "recall", "load", "pylab",
})  # fmt: skip
_PYTHON_MAGICS = frozenset({"time", "timeit", "prun"})
_CD_MAGICS = frozenset({"cd", "pushd"})
_MAGIC_LINE = re.compile(r"^(?:[A-Za-z_]\w*\s*=\s*)?%(?P<name>[A-Za-z_]\w*)(?P<args>.*)$")
_PROMPT = re.compile(r"^(?:In \[\d*\]: ?|\s*\.\.\.+: ?|>>> ?|\.\.\. ?)")
# A Python statement's second token after a name: then the line is Python, not automagic (IPython's prefilter)
_PYTHON_AFTER_NAME = re.compile(r"^\s*(?:[=(\[.,:;]|[-+*/%&|^<>!]=|$)")


@dataclasses.dataclass
class Kernel:
    """What earlier lines and cells of a notebook set up for later ones: the aliases defined, the `cd`s made."""

    aliases: dict[str, str] = dataclasses.field(default_factory=lambda: dict(_DEFAULT_ALIASES))
    moves: list[str] = dataclasses.field(default_factory=list)


def kernel_code_line(code: str, kernel: Kernel | None = None) -> str:
    """The shell line that does what the kernel's `code` does (see the module's docstring); `kernel`: what the
    notebook's earlier cells set up, updated with this cell's."""
    kernel = kernel if kernel is not None else Kernel()
    code = "\n".join(_cleaned(code)) + ("\n" if code.endswith("\n") else "")
    cell = _CELL.match(code)
    if cell is None:
        return _lines(code, kernel)
    name, args, body = cell["name"], cell["args"].strip(), code[cell.end() :]
    if name in _SHELL_CELLS:
        return body
    if name == "script" or name in _SCRIPT_CELLS:
        program = args if name == "script" else name
        return _fed(program, body) if program else ""
    if name in _FILE_CELLS:
        return _written(args, body)
    if name in _DISPLAY_CELLS:
        return ""
    return kernel_code_line(body, kernel)  # `%%time`, `%%capture`: the body runs as the kernel's code, cell magic too


def _cleaned(code: str) -> list[str]:
    """The cell's lines as IPython's cleanup transforms leave them: leading blank lines dropped, prompts stripped,
    a line ending in `\\` joined with the next."""
    lines = code.lstrip("\n").splitlines()
    if lines and _PROMPT.match(lines[0]):
        lines = [_PROMPT.sub("", line, count=1) for line in lines]
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line.lstrip()
        else:
            joined.append(line)
    return joined


def _lines(code: str, kernel: Kernel) -> str:
    """Line by line: the shell escapes and command magics as their commands, the rest as Python."""
    shell, text = kernel_parts(code, kernel)
    return "\n".join([*shell, *([f"python3 -c {shlex.quote(text)}"] if text.strip() else [])])


def kernel_parts(code: str, kernel: Kernel | None = None) -> tuple[list[str], str]:
    """The shell lines of code outside a cell magic (an IPython file's, `.ipy`), and the Python left: empty when it
    does not parse."""
    kernel = kernel if kernel is not None else Kernel()
    shell: list[str] = []
    python: list[str] = []
    lines = _cleaned(code)
    single = sum(1 for line in lines if line.strip()) == 1
    for line in lines:
        stripped = line.strip()
        if single and _automagic(stripped, kernel):
            stripped = "%" + stripped
        if found := _SHELL_LINE.match(stripped):
            shell.append(found["cmd"])
        elif found := _PROGRAM_LINE.match(stripped):
            shell.append(f"{_PROGRAMS[found['magic']]} {_run_args(found['magic'], found['args'])}".strip())
        elif found := _MAGIC_LINE.match(stripped):
            kind, text = _line_magic(found["name"], found["args"].strip(), kernel)
            (shell if kind == "shell" else python).append(text if kind == "shell" else line[: line.find("%")] + text)
        elif not stripped.startswith("%"):
            python.append(_escaped(line))
    text = "\n".join(python)
    if not _parses(text):  # prose (a markdown cell given as a cell's source), or code a SyntaxError stops whole
        return shell, ""  # (IPython compiles the transformed cell whole: nothing of it runs; its escapes are above)
    values = _string_names(text)
    return [*(_expanded(line, values) for line in shell), *_ipython_calls(text, kernel)], text


# IPython's escapes (IPython.core.inputtransformer2: EscapedCommand, HelpEnd): `/f a` is `f(a)`, `;f a b` is
# `f("a b")`, `,f a b` is `f("a", "b")`; `obj?`, `?obj`, `obj??` show help and run nothing
_AUTOCALL = re.compile(r"^(?P<indent>\s*)(?P<esc>[/;,])(?P<name>[A-Za-z_][\w.]*)\s*(?P<args>.*)$")
_HELP = re.compile(r"^\s*(?:\?{1,2}[\w.*]+|[\w.*]+\?{1,2})\s*$")


def _escaped(line: str) -> str:
    """A Python line as IPython's escape transforms leave it."""
    if _HELP.match(line):
        return ""
    found = _AUTOCALL.match(line)
    if found is None:
        return line
    name, args, esc = found["name"], found["args"], found["esc"]
    quoted = repr(args) if esc == ";" else ", ".join(repr(word) for word in args.split()) if esc == "," else args
    return f"{found['indent']}{name}({quoted})"


def _automagic(line: str, kernel: Kernel) -> bool:
    """A one-line cell's first word naming a line magic this reads, followed by no Python operator: IPython runs
    it as the magic (`sx CMD`, `rm -rf DIR`, `cd ~`)."""
    name, _, rest = line.partition(" ")
    known = {"sx", "system", "sc", "pip", "conda", "run", "alias", "env", *_CD_MAGICS, *kernel.aliases}
    return name in known and not _PYTHON_AFTER_NAME.match(rest)


def _line_magic(name: str, args: str, kernel: Kernel) -> tuple[str, str]:
    """A line magic as the magics manager runs it: ("shell", the command it runs) or ("python", code)."""
    if name == "alias":
        alias, _, command = args.partition(" ")
        if alias and command.strip():
            kernel.aliases[alias] = command.strip()
        return "python", ""
    if name == "unalias":
        kernel.aliases.pop(args, None)
        return "python", ""
    if name in kernel.aliases:
        return "shell", _alias_line(kernel.aliases[name], args)
    if name in _CD_MAGICS:
        move = f"cd {args}" if args and not args.startswith("-") else "cd"
        kernel.moves.append(move)
        return "shell", move
    if name == "env" and ("=" in args or " " in args):
        variable, _, value = args.replace("=", " ", 1).partition(" ")
        return "shell", f"export {variable}={value.strip()}"
    if name in _PYTHON_MAGICS:
        return "python", re.sub(r"^(?:-\S+\s+)*", "", args)
    if name in _INERT_MAGICS or name == "env":
        return "python", ""
    return "shell", f'eval "$(ipython-magic {shlex.join([name, *args.split()])})"'  # not known: unknown code


def _alias_line(command: str, args: str) -> str:
    """An alias run with its arguments (IPython.core.alias.Alias.__call__): `%l` takes the whole line, each `%s` one
    word; the words left are appended."""
    if "%l" in command:
        return command.replace("%l", args)
    words = args.split()
    count = command.count("%s")
    for word in words[:count]:
        command = command.replace("%s", word, 1)
    return " ".join([command, *words[count:]]).strip()


# IPython expands `$name` and `{name}` in a shell line with the Python value of that name (`$$` is a literal `$`):
# https://ipython.readthedocs.io/en/stable/interactive/reference.html#manual-capture-of-command-output-and-magic-output
_EXPANSION = re.compile(r"\$\$|\$([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\}")


def _expanded(line: str, values: dict[str, str]) -> str:
    """A shell line with the names the cell set to a string put in, as IPython puts their values in; a name the
    cell does not set stays as written (`$HOME` is then the shell's)."""
    return _EXPANSION.sub(lambda m: "$" if m[0] == "$$" else values.get(m[1] or m[2], m[0]), line)


def _string_names(text: str) -> dict[str, str]:
    """The names the code sets, once each, to a string literal (`target = '~/.ssh'`)."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(name := node.targets[0], ast.Name):
            value = node.value
            literal = value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else ""
            found[name.id] = "" if name.id in found else literal  # set twice: which value holds is not known
    return {k: v for k, v in found.items() if v}


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return False
    return True


def _run_args(magic: str, args: str) -> str:
    """`%run`'s own options (`-i`, `-t`, `-d`) dropped but `-m MODULE`: the script (or module) and its arguments."""
    if magic != "run":
        return args
    words, kept = args.split(), []
    while words and words[0].startswith("-"):
        option, words = words[0], words[1:]
        if option == "-m" and words:
            kept, words = ["-m", words[0]], words[1:]
            break
    return " ".join([*kept, *words])


def _fed(program: str, body: str) -> str:
    mark = _MARK
    while mark in body:
        mark += "_"
    return f"{program} <<'{mark}'\n{body.removesuffix(chr(10))}\n{mark}"


def _written(args: str, body: str) -> str:
    """`%%writefile [-a] PATH`: `cat > PATH` (or `>>`) of the body; the path's `~` is the home, as IPython's is."""
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    append = any(w in ("-a", "--append") for w in words)
    paths = [w for w in words if not w.startswith("-")]
    if not paths:
        return ""
    path = paths[0]
    target = f"~/{shlex.quote(path[2:])}" if path.startswith("~/") else shlex.quote(path)
    return _fed(f"cat {'>>' if append else '>'} {target}", body)


def _ipython_calls(text: str, kernel: Kernel) -> list[str]:
    """The shell lines of `get_ipython().system(CMD)` and its kin in the Python (each literal CMD), and of the
    magics it runs by name (`run_line_magic('system', CMD)`, `run_cell_magic('bash', '', BODY)`), on the object or
    a name it was given to."""
    if "get_ipython" not in text:
        return []
    tree = ast.parse(text)
    names = {"get_ipython()"} | {
        t.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and _is_get_ipython(node.value)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    out = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner = "get_ipython()" if _is_get_ipython(node.func.value) else getattr(node.func.value, "id", "")
        texts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if owner not in names or len(texts) != len(node.args) or not texts:
            continue
        if node.func.attr in _SHELL_METHODS:
            out.append(texts[0])
        elif node.func.attr == "run_cell_magic" and len(texts) == 3:
            out.append(kernel_code_line(f"%%{texts[0]} {texts[1]}\n{texts[2]}", kernel))
        elif node.func.attr in _MAGIC_METHODS:
            out.append(kernel_code_line("%" + " ".join(texts), kernel))
    return out


def _is_get_ipython(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "get_ipython"
