"""Files run later that are not startup files: a system program replaced (`update-alternatives --install`, a
link over /usr/bin/NAME), a program's configuration key that loads code (`.npmrc`'s `node-options`, the
environment table's NODE_OPTIONS), and a library preloaded from scratch space the line did not build."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _later(command: str, proj: Path) -> list[tuple[str, str]]:
    return [(e["program"], e["startup"]) for e in ops(command, proj, "exec") if e.get("deferred")]


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("update-alternatives --force --install /usr/bin/git git /tmp/.g 9999", "update-alternatives"),
        ("ln -sf /tmp/.g /usr/bin/git", "ln"),
        ("cp /tmp/x /bin/ls", "cp"),
    ],
)
def test_a_system_program_replaced_runs_later_for_every_caller(command: str, program: str, tmp_path: Path) -> None:
    assert [p for p, _ in _later(command, tmp_path)] == [program]


@pytest.mark.parametrize(
    "command",
    [
        "update-alternatives --set java /usr/lib/jvm/java-17-openjdk-amd64/bin/java",
        "update-alternatives --display editor",
        "sudo install -m 755 build/hookd-demo-tool /usr/bin/hookd-demo-tool",  # a name no program has
    ],
)
def test_choosing_an_alternative_or_installing_a_new_program_replaces_nothing(command: str, tmp_path: Path) -> None:
    assert _later(command, tmp_path) == []


@pytest.mark.parametrize(
    ("command", "loaded"),
    [
        ("printf 'node-options=--require /tmp/r.js\\n' >> .npmrc", "/tmp/r.js"),
        ("echo 'NODE-OPTIONS = --import=/tmp/h.mjs' > ~/.npmrc", "/tmp/h.mjs"),
        ("echo 'org.gradle.jvmargs=-javaagent:/tmp/a.jar -Xmx2g' >> gradle.properties", "/tmp/a.jar"),
    ],
)
def test_a_configuration_key_that_is_an_environment_variable_loads_the_files_it_names(
    command: str, loaded: str, tmp_path: Path
) -> None:
    found = [e for e in ops(command, tmp_path, "exec") if e.get("deferred")]
    assert [(e["path"], e["known"]) for e in found] == [(loaded, False)]


@pytest.mark.parametrize(
    "command",
    [
        "echo 'node-options=--max-old-space-size=4096' >> .npmrc",
        "echo 'org.gradle.jvmargs=-Xmx2048m -Dfile.encoding=UTF-8' >> gradle.properties",
        "echo '//registry.npmjs.org/:_authToken=${NPM_TOKEN}' > .npmrc",
    ],
)
def test_options_that_load_no_file_run_nothing_later(command: str, tmp_path: Path) -> None:
    assert _later(command, tmp_path) == []


@pytest.mark.parametrize(
    ("command", "key", "program"),
    [
        ("echo 'script-shell=/tmp/x' > ~/.npmrc", "script-shell", "/tmp/x"),
        ("echo 'use_askpass = /tmp/a.sh' >> ~/.wgetrc", "use_askpass", "/tmp/a.sh"),  # every wget runs it
    ],
)
def test_a_key_whose_value_a_program_runs_is_deferred_code(
    command: str, key: str, program: str, tmp_path: Path
) -> None:
    found = [e for e in ops(command, tmp_path, "exec") if e.get("deferred")]
    assert [(e["key"], e["code"]["text"]) for e in found] == [(key, program)]


def test_a_programs_everyday_settings_run_nothing_later(tmp_path: Path) -> None:
    assert [
        e for e in ops("printf 'tries = 3\ntimeout = 30\n' >> ~/.wgetrc", tmp_path, "exec") if e.get("deferred")
    ] == []


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'LD_PRELOAD=/tmp/.l.so exec git status'",
        "LD_AUDIT=/dev/shm/a.so ls",
        "export LD_PRELOAD=/var/tmp/x.so; make",
    ],
)
def test_a_library_preloaded_from_scratch_space_is_unknown_code(command: str, tmp_path: Path) -> None:
    assert [e["known"] for e in ops(command, tmp_path, "exec") if e.get("planted")] == [False]


@pytest.mark.parametrize(
    "command",
    [
        "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ./app",
        "gcc -shared -fPIC -o /tmp/shim.so shim.c && LD_PRELOAD=/tmp/shim.so ./app",  # built on the line
    ],
)
def test_a_system_library_or_one_built_on_the_line_is_not_planted(command: str, tmp_path: Path) -> None:
    assert [e for e in ops(command, tmp_path, "exec") if e.get("planted")] == []


@pytest.mark.parametrize(
    "command",
    [
        'npm config set node-options "--require /tmp/x.js"',
        "npm set node-options='--import ./hook.mjs'",
        'npm config set node-options "-r ./x.js" --location=project',
    ],
)
def test_a_setting_handed_to_later_runs_as_node_options_loads_its_files_later(command: str, proj: Path) -> None:
    assert [(e["code"]["lang"], e["known"], e.get("deferred")) for e in ops(command, proj, "exec")] == [
        ("node", False, True)
    ]


@pytest.mark.parametrize(
    "command", ['npm config set node-options "--max-old-space-size=4096"', "npm config set save-exact true"]
)
def test_a_setting_that_loads_nothing_runs_nothing_later(command: str, proj: Path) -> None:
    assert ops(command, proj, "exec") == []
