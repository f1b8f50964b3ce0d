"""The project's configuration a subcommand runs, read whole or known not to be (hookd.enrich.effects.projectcode,
hookd.enrich.effects.compose): Compose's merged files and override, terraform's `-chdir`, and what is past the
bounds of what is read left as unknown code, never skipped in silence."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

from tests.unit.enrich.test_tool_effects import enriched
from tests.unit.enrich.test_tool_effects_later import later

_SERVICE = "services:\n  app:\n    image: alpine\n"
_DELETE_DOCUMENTS = (
    'resource "null_resource" "x" {\n  provisioner "local-exec" {\n    command = "rm -rf ~/Documents"\n  }\n}\n'
)


def deleted(command: str, project: Path) -> set[str]:
    return {e["path"] for e in ops(command, project, "delete")}


def unknown_code(command: str, project: Path) -> bool:
    return any(e["op"] == "exec" and e.get("known") is False for e in effects(command, project))


@pytest.mark.parametrize(
    ("command", "files"),
    [
        # the override Compose reads without -f: its command runs through the base file's mount
        ("docker compose up -d", {"compose.yaml": _SERVICE + "    volumes: ['~/:/h']\n",
                                  "compose.override.yaml": "services:\n  app:\n    command: rm -rf /h/Documents\n"}),
        ("docker-compose up", {"docker-compose.yml": _SERVICE,
                               "docker-compose.override.yml": "services:\n  app:\n    volumes: ['~/:/h']\n"
                                                              "    command: rm -rf /h/Documents\n"}),
        # every -f file, merged in order
        ("docker compose -f compose.yaml -f dev.yaml up", {"compose.yaml": _SERVICE + "    command: echo hi\n",
                                                          "dev.yaml": "services:\n  app:\n    volumes: ['~/:/h']\n"
                                                                      "    command: rm -rf /h/Documents\n"}),
    ],
)  # fmt: skip
def test_compose_reads_every_file_it_merges(command: str, files: dict[str, str], tmp_path: Path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert deleted(command, tmp_path) == {f"{HOME}/Documents"}


def test_a_later_file_replaces_a_services_command(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(_SERVICE + "    volumes: ['~/:/h']\n    command: rm -rf /h/Documents\n")
    (tmp_path / "dev.yaml").write_text("services:\n  app:\n    command: echo hi\n")
    assert deleted("docker compose -f compose.yaml -f dev.yaml up", tmp_path) == set()


def test_terraform_reads_the_directory_chdir_names(tmp_path: Path) -> None:
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "main.tf").write_text(_DELETE_DOCUMENTS)
    assert deleted("terraform -chdir=infra apply -auto-approve", tmp_path) == {f"{HOME}/Documents"}
    assert deleted("terraform apply -auto-approve", tmp_path) == set()  # nothing in the working directory


def test_more_tf_files_than_are_read_leave_unknown_code(tmp_path: Path) -> None:
    for n in range(33):
        (tmp_path / f"m{n:02}.tf").write_text("# nothing\n")
    assert unknown_code("terraform apply -auto-approve", tmp_path)
    (tmp_path / "m32.tf").unlink()
    assert not unknown_code("terraform apply -auto-approve", tmp_path)


def test_more_services_than_are_read_leave_unknown_code(tmp_path: Path) -> None:
    many = "services:\n" + "".join(f"  s{n}:\n    image: alpine\n" for n in range(17))
    (tmp_path / "compose.yaml").write_text(many)
    assert unknown_code("docker compose up -d", tmp_path)
    (tmp_path / "compose.yaml").write_text("services:\n" + "".join(f"  s{n}:\n    image: alpine\n" for n in range(16)))
    assert not unknown_code("docker compose up -d", tmp_path)


def test_a_written_compose_file_with_more_services_than_are_read_is_judged_later(tmp_path: Path) -> None:
    path = str(tmp_path / "compose.yaml")
    many = "services:\n" + "".join(f"  s{n}:\n    image: alpine\n    command: echo {n}\n" for n in range(17))
    assert path in later(enriched("copilot", "create", {"path": path, "file_text": many}, tmp_path))
    few = "services:\n" + "".join(f"  s{n}:\n    image: alpine\n    command: echo {n}\n" for n in range(16))
    assert path not in later(enriched("copilot", "create", {"path": path, "file_text": few}, tmp_path))


def test_a_relative_mount_is_below_the_first_compose_files_directory(tmp_path: Path) -> None:
    """`../.:/src` in docker/compose.yml binds the project (Compose: "Paths are evaluated relative to the base
    file"), not the directory above it."""
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "compose.yml").write_text(
        _SERVICE + "    volumes: ['../.:/src']\n    command: rm -rf /src/build\n"
    )
    assert deleted("docker compose -f docker/compose.yml up", tmp_path) == {f"{tmp_path}/build"}
    assert not unknown_code("docker compose -f docker/compose.yml run --rm app", tmp_path)


def test_every_named_file_is_read_whatever_options_come_between(tmp_path: Path) -> None:
    for name in ("a.yml", "b.yml"):
        (tmp_path / name).write_text("services:\n  app:\n    image: alpine\n")
    (tmp_path / "c.yml").write_text("services:\n  app:\n    volumes: ['~/:/h']\n    command: rm -rf /h/Documents\n")
    for command in (
        "docker compose -f a.yml -f b.yml -f c.yml up",
        "docker compose -fa.yml --file=b.yml --file c.yml up",
        "docker compose --ansi never -f a.yml -f c.yml up -d",
    ):
        assert deleted(command, tmp_path) == {f"{HOME}/Documents"}, command
    assert deleted("docker compose -f a.yml -f c.yml logs up", tmp_path) == set()  # `up` is a service here


def test_a_compose_file_the_line_writes_is_read_from_the_line(tmp_path: Path) -> None:
    line = "printf 'services:\\n  a:\\n    volumes: [\"~/:/h\"]\\n    command: rm -rf /h/Documents\\n' > c.yml"
    assert f"{HOME}/Documents" in deleted(line + " && docker compose -f c.yml up", tmp_path)


def test_compose_files_hookd_cannot_read_whole_leave_unknown_code(tmp_path: Path) -> None:
    (tmp_path / "a.yml").write_text(_SERVICE + "    extends:\n      file: ../x.yml\n      service: y\n")
    assert unknown_code("docker compose -f a.yml up", tmp_path)  # a service taken from elsewhere
    files = " ".join(f"-f f{n}.yml" for n in range(40))
    for n in range(40):
        (tmp_path / f"f{n}.yml").write_text("services: {}\n")
    assert unknown_code(f"docker compose {files} up", tmp_path)  # more files than are read
    assert not unknown_code("docker compose -f missing.yml up", tmp_path)  # Compose fails: nothing runs


@pytest.mark.parametrize(
    ("makefile", "expected"),
    [
        ("X = " + "true; " * 150 + "\nY = " + "$(X)" * 8 + "\nall:\n" + "\t$(Y)\n" * 2000, "unknown"),  # megabytes
        ("define X\nrm -rf ~\nendef\nall:\n\t$(X)\n", "unknown"),  # a multi-line variable is not read
        ("all:\n\t$(if 1,rm -rf ~/Documents)\n", "unknown"),  # a function that chooses its text when make runs
        ("include missing.mk\nall:\n\techo hi\n", "unknown"),
        ("# " + "x" * 300_000 + "\nall:\n\trm -rf ~\n", "unknown"),  # too large to read
        (".DEFAULT_GOAL := pwn\nall:\n\techo hi\npwn:\n\trm -rf ~/Music\n", f"{HOME}/Music"),  # the goal it names
        ("include other.mk\nall: pwn\n\techo hi\n", f"{HOME}/Pictures"),  # the included file's rule
        ("all:\n\t$(eval X := $(shell echo hi))\n\techo $(X)\n", "nothing"),  # eval prints nothing
        ("-include missing.mk\nall:\n\techo hi\n", "nothing"),
    ],
)
def test_make_reads_its_makefile_whole_or_says_it_did_not(makefile: str, expected: str, tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(makefile)
    (tmp_path / "other.mk").write_text("pwn:\n\trm -rf ~/Pictures\n")
    found = deleted("make", tmp_path)
    assert (unknown_code("make", tmp_path), found) == (
        expected == "unknown",
        {expected} if expected.startswith("/") else set(),
    )
