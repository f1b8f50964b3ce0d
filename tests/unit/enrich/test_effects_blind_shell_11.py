"""Mechanisms blind-shell-11's first run missed (policies/README.md, "The eleventh blind shell batch"): the effects
they now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

from hookd.enrich.effects.processes import EVERY_NAME, lists_every_process, piped_words
from hookd.enrich.shell import parse_shell
from hookd.enrich.shell import parser as shell_parser


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _deleted(command: str, proj: Path) -> set[str]:
    return {str(e.get("path")) for e in ops(command, proj, "delete")}


# --- the project's configuration a runner reads in its directory: the part this run executes ---


def test_a_make_goal_runs_its_recipe_and_its_prerequisites_with_the_makefiles_variables(tmp_path: Path) -> None:
    makefile = (
        "OUT := build\n\nall:\n\techo hi\n\nclean: tidy\n\trm -rf $(HOME)/.cache/x $(OUT)\n\n"
        "tidy:\n\t@rm -rf ~/.local/share/x\n\nother:\n\trm -rf ~/Documents\n"
    )
    proj = _project(tmp_path, {"Makefile": makefile})
    deleted = _deleted("make clean", proj)
    assert {f"{HOME}/.cache/x", str(proj / "build"), f"{HOME}/.local/share/x"} <= deleted
    assert f"{HOME}/Documents" not in deleted  # another goal's recipe does not run
    assert not _deleted("make", proj)  # the default goal, the first: `echo hi`


def test_a_recipe_with_a_value_known_only_when_it_runs_is_left_out(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"Makefile": "clean:\n\trm -rf $(DESTDIR)/share\n\trm -rf build/\n"})
    assert _deleted("make clean", proj) == {
        str(proj / "build")
    }  # the line with `${DESTDIR}`, the environment's, is not


@pytest.mark.parametrize(
    ("command", "deleted"),
    [("npm run build", f"{HOME}/a"), ("npm run build", f"{HOME}/b"), ("npm run build", f"{HOME}/c"),
     ("npm test", f"{HOME}/t"), ("npm install", f"{HOME}/i"), ("pnpm run build", f"{HOME}/b"),
     ("yarn test", f"{HOME}/t")],
)  # fmt: skip
def test_a_package_script_runs_with_its_pre_and_post_scripts(command: str, deleted: str, tmp_path: Path) -> None:
    scripts = '{"prebuild": "rm -rf ~/a", "build": "rm -rf ~/b", "postbuild": "rm -rf ~/c", "test": "rm -rf ~/t", ' \
              '"postinstall": "rm -rf ~/i", "lint": "rm -rf ~/l"}'  # fmt: skip
    proj = _project(tmp_path, {"package.json": '{"name": "w", "scripts": ' + scripts + "}"})
    found = _deleted(command, proj)
    assert deleted in found
    assert f"{HOME}/l" not in found  # a script this run does not name


def test_adding_a_package_runs_not_the_projects_life_cycle(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"package.json": '{"scripts": {"postinstall": "rm -rf ~/i"}}'})
    assert f"{HOME}/i" not in _deleted("npm install lodash", proj)


def test_a_just_recipe_runs_after_its_dependencies(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"justfile": "build:\n    cargo build\n\nsetup: prep\n    @rm -rf ~/s\n\nprep:\n"
                                           "    rm -rf ~/p\n\nnuke:\n    rm -rf ~/n\n"})  # fmt: skip
    assert _deleted("just setup", proj) == {f"{HOME}/s", f"{HOME}/p"}
    assert not _deleted("just", proj)  # the first recipe: cargo build


def test_a_tox_environment_runs_its_commands(tmp_path: Path) -> None:
    proj = _project(tmp_path, {"tox.ini": "[tox]\nenv_list = py\n\n[testenv]\ncommands = pytest {posargs}\n\n"
                                          "[testenv:lint]\ncommands_pre =\n    rm -rf {env:HOME}/.pypirc\n"
                                          "commands = ruff check .\n"})  # fmt: skip
    assert _deleted("tox -e lint", proj) == {f"{HOME}/.pypirc"}
    assert not _deleted("tox", proj)
    assert _deleted("tox exec -e py -- rm -rf ~/Documents", proj) == {f"{HOME}/Documents"}  # a launcher


def test_code_a_runner_loads_is_followed_as_a_project_script(tmp_path: Path) -> None:
    proj = _project(tmp_path, {
        "noxfile.py": "import os\nimport nox\n\n@nox.session\ndef t(session):\n"
                      "    session.run('rm', '-rf', os.path.expanduser('~/.gnupg'), external=True)\n",
        "lib/setup.py": "import shutil\nfrom setuptools import setup\nshutil.rmtree('/home/u/.aws')\nsetup(name='x')\n",
        "build.gradle": "tasks.register('p', Exec) {\n    commandLine 'sh', '-c', 'rm -rf ~/.m2'\n}\n",
    })  # fmt: skip
    assert _deleted("nox -s t", proj) == {f"{HOME}/.gnupg"}
    assert _deleted("pip install -e ./lib", proj) == {f"{HOME}/.aws"}
    assert not _deleted("pip install requests", proj)  # a package by name: not the project's
    assert _deleted("./gradlew build", proj) == {f"{HOME}/.m2"}


def test_direnv_allow_runs_the_envrc(tmp_path: Path) -> None:
    proj = _project(tmp_path, {".envrc": "layout python3\nrm -rf ~/.kube\n"})
    assert _deleted("direnv allow .", proj) == {f"{HOME}/.kube"}


# --- inline Python: a name bound once, and the temporary directory ---


def test_a_name_bound_once_is_the_path_a_call_is_given(tmp_path: Path) -> None:
    code = "import json; p='package.json'; d=json.load(open(p)); open(p, 'w').write(json.dumps(d))"
    found = effects(f'python3 -c "{code}"', tmp_path)
    assert {(e["op"], e.get("path")) for e in found if e["op"] in ("read", "write")} == {
        ("read", str(tmp_path / "package.json")),
        ("write", str(tmp_path / "package.json")),
    }
    assert not [e for e in found if e.get("class") == "unresolved"]
    listed = "import subprocess; d='/home/u/.ssh'; subprocess.run(['rm', '-rf', d])"
    assert _deleted(f'python3 -c "{listed}"', tmp_path) == {f"{HOME}/.ssh"}


def test_a_temporary_directory_the_code_makes_is_scratch(tmp_path: Path) -> None:
    code = "import shutil, tempfile; t = tempfile.mkdtemp(prefix='x-'); shutil.rmtree(t)"
    assert _deleted(f'python3 -c "{code}"', tmp_path) == {"/tmp/tmp.mktemp"}


def test_bun_file_reads_and_bun_write_writes(tmp_path: Path) -> None:
    found = effects("bun -e 'const p = await Bun.file(\"package.json\").json(); await Bun.write(\"out.txt\", \"x\")'",
                    tmp_path)  # fmt: skip
    assert ("read", str(tmp_path / "package.json")) in {(e["op"], e.get("path")) for e in found}
    assert ("write", str(tmp_path / "out.txt")) in {(e["op"], e.get("path")) for e in found}
    assert all(e.get("known") for e in found if e["op"] == "exec")


# --- a redirection of a command run with sudo is the caller's shell's ---


def test_a_sudo_commands_redirection_is_not_privileged(tmp_path: Path) -> None:
    found = effects("sudo -n ls /root 2>/dev/null", tmp_path)  # (`true` uses no privilege: gaps38)
    assert [e for e in found if e["op"] == "privilege"]
    assert not [e for e in found if e["op"] in ("write", "device") and e.get("privileged")]
    assert [
        e for e in effects("sudo tee /etc/motd < /dev/null", tmp_path) if e["op"] == "write" and e.get("privileged")
    ]


# --- every process, listed for a signal through a pipe or a user ---


@pytest.mark.parametrize(
    ("listing", "every"),
    [("ps -e -o pid=", True), ("ps -u dev -o pid=", True), ("pgrep -u dev", True), ('lsof -t -u "$(id -un)"', True),
     ("pgrep -u dev node", False), ("lsof -ti:3000", False), ("lsof -t -i :8080 -sTCP:LISTEN", False),
     ("ps -C node -o pid=", False), ("lsof -t -u dev -c node", False)],
)  # fmt: skip
def test_a_listing_of_every_process_of_a_user(listing: str, every: bool) -> None:
    assert lists_every_process(listing) is every


def test_a_pipe_from_a_listing_of_every_process_looks_up_every_name(tmp_path: Path) -> None:
    assert EVERY_NAME in piped_words([], ["ps", "-e", "-o", "pid="])
    assert EVERY_NAME not in piped_words(piped_words([], ["ps", "aux"]), ["grep", "node"])
    signal = ops("ps -e -o pid= | xargs kill -9", tmp_path, "signal")
    assert EVERY_NAME in signal[0]["lookup"]
    narrowed = ops("ps aux | grep node | awk '{print $2}' | xargs kill", tmp_path, "signal")
    assert EVERY_NAME not in narrowed[0]["lookup"]  # judged by its words, as before


# --- a cargo configuration's wrapper runs at every later build ---


def test_a_rustc_wrapper_in_cargos_configuration_runs_later(tmp_path: Path) -> None:
    wrapped = "printf '[build]\\nrustc-wrapper = \"/tmp/w\"\\n' >> ~/.cargo/config.toml"
    assert [e for e in ops(wrapped, tmp_path, "exec") if e.get("deferred") and e.get("key") == "rustc-wrapper"]
    linker = "printf '[target.x]\\nlinker = \"clang\"\\n' > .cargo/config.toml"
    assert not ops(linker, tmp_path, "exec")


# --- tree-sitter's `a && b 2>f | c`: only b is piped (found by the parsers' differential over the new cases) ---


def test_a_redirected_list_member_alone_is_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shell_parser, "FULL_PARSER", "tree-sitter")
    shell_parser._parse_cached.cache_clear()
    try:
        parsed = parse_shell("( p && ls 2>/dev/null | grep x || true\n)", home=HOME, base_dir="/p", project_dir="/p")
    finally:
        shell_parser._parse_cached.cache_clear()
    piped = [(c["name"], c["pipeline"], c["position"]) for c in parsed["commands"]]
    assert piped == [("p", 0, 0), ("ls", 1, 0), ("grep", 1, 1), ("true", 2, 0)]


def test_a_redirection_inside_a_root_shell_is_root(tmp_path: Path) -> None:
    inner = effects("sudo sh -c 'echo x > /etc/sudoers.d/zz'", tmp_path)
    assert [e for e in inner if e["op"] == "write" and e.get("path") == "/etc/sudoers.d/zz" and e.get("privileged")]


def test_a_long_run_of_blanks_and_a_self_referring_variable_give_nothing(tmp_path: Path) -> None:
    blanks = "a" + " " * 15000 + "b\n"  # (split at the first colon: no pattern retried at each blank)
    proj = _project(tmp_path, {"Makefile": blanks + "A = $(A) $(A)\nx:\n\techo $(A)\n", "justfile": blanks})
    assert not _deleted("make x", proj)
    assert not _deleted("just", proj)
