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
* IPython's own object in Python: `get_ipython().system(CMD)` and `.getoutput(CMD)` are what `!CMD` compiles to.

The rest is Python, judged as `python3 -c` of it; Python that does not parse runs nothing (a SyntaxError stops the
whole cell: prose given as a cell's source, a markdown cell's text), though its shell lines are still read.
"""

from __future__ import annotations

import ast
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
_MARK = "HOOKD_CELL"


def kernel_code_line(code: str) -> str:
    """The shell line that does what the kernel's `code` does (see the module's docstring)."""
    cell = _CELL.match(code)
    if cell is None:
        return _lines(code)
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
    return _lines(body)  # `%%time`, `%%capture`, `%%timeit`: the body runs as the kernel's code


def _lines(code: str) -> str:
    """Line by line: the shell escapes and command magics as their commands, the rest as Python."""
    shell, text = kernel_parts(code)
    return "\n".join([*shell, *([f"python3 -c {shlex.quote(text)}"] if text.strip() else [])])


def kernel_parts(code: str) -> tuple[list[str], str]:
    """The shell lines of code outside a cell magic (an IPython file's, `.ipy`), and the Python left: empty when it
    does not parse."""
    shell: list[str] = []
    python: list[str] = []
    for line in code.splitlines():
        stripped = line.strip()
        if found := _SHELL_LINE.match(stripped):
            shell.append(found["cmd"])
        elif found := _PROGRAM_LINE.match(stripped):
            shell.append(f"{_PROGRAMS[found['magic']]} {_run_args(found['magic'], found['args'])}".strip())
        elif not stripped.startswith("%"):  # other line magics (`%matplotlib`, `%load_ext`) set the kernel up
            python.append(line)
    text = "\n".join(python)
    if not _parses(text):  # prose (a markdown cell given as a cell's source), or code a SyntaxError stops whole
        return shell, ""
    values = _string_names(text)
    return [*(_expanded(line, values) for line in shell), *_ipython_calls(text)], text


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


def _ipython_calls(text: str) -> list[str]:
    """The shell lines of `get_ipython().system(CMD)` and its kin in the Python: each literal CMD."""
    if "get_ipython" not in text:
        return []
    out = []
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _SHELL_METHODS
            and isinstance(owner := node.func.value, ast.Call)
            and isinstance(owner.func, ast.Name)
            and owner.func.id == "get_ipython"
            and node.args
            and isinstance(command := node.args[0], ast.Constant)
            and isinstance(command.value, str)
        ):
            out.append(command.value)
    return out
