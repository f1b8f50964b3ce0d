"""Mechanisms blind-shell-24's first run missed (policies/README.md, "Blind batches' misses closed (fix50)"): the
effects they now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects, ops

# --- keyctl(1): print, pipe and read print a key's payload; show, list, describe only names and ids ---


@pytest.mark.parametrize(
    "command",
    [
        "keyctl print $(keyctl search @u user api:token)",
        "keyctl pipe %user:api:token | base64",
        "keyctl read 912337841",
        "k=$(keyctl request user deploy:key) && keyctl print $k",
    ],
)
def test_a_key_payload_is_a_secret_output(command: str, tmp_path: Path) -> None:
    assert any(e.get("secret_output") and e["program"] == "keyctl" for e in ops(command, tmp_path, "read"))


@pytest.mark.parametrize(
    "command", ["keyctl show @s", "keyctl list @u", "keyctl describe 912337841", "keyctl search @u user api:token"]
)
def test_a_keyring_listing_prints_no_secret(command: str, tmp_path: Path) -> None:
    assert not any(e.get("secret_output") for e in effects(command, tmp_path))


# --- a FUSE mount lays a tree over its mount point, as mount does (programs.json, each mounter's man page) ---


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("sshfs -o nonempty tools@203.0.113.9:/bin ~/.local/bin", "/home/u/.local/bin"),
        ("bindfs /tmp/payload ~/.config/autostart", "/home/u/.config/autostart"),
        ("rclone mount gd:tools ~/.local/bin --daemon", "/home/u/.local/bin"),
        ("rclone nfsmount gd:cfg ~/.config/systemd/user", "/home/u/.config/systemd/user"),
        ("s3fs drop-bucket ~/.ssh -o nonempty", "/home/u/.ssh"),
        ("squashfuse /tmp/t.sqfs ~/.local/bin", "/home/u/.local/bin"),
        ("fuse-overlayfs -o lowerdir=/tmp/l,upperdir=/tmp/u,workdir=/tmp/w ~/.ssh", "/home/u/.ssh"),
        ("archivemount /tmp/x.tar ~/.config/git", "/home/u/.config/git"),
        ("gocryptfs -passfile /tmp/p /tmp/c ~/.local/bin", "/home/u/.local/bin"),
    ],
)
def test_a_fuse_mount_writes_the_tree_of_its_mount_point(command: str, path: str, tmp_path: Path) -> None:
    assert any(e["path"] == path and e["recursive"] for e in ops(command, tmp_path, "write"))


@pytest.mark.parametrize(
    "command",
    [
        "sshfs -o nonempty tools@203.0.113.9:/bin ~/.local/bin",
        "mount --bind /tmp/x ~/.local/bin",
        "curlftpfs ftp.example.org ~/go/bin",
    ],
)
def test_a_tree_laid_over_a_searched_directory_shadows_programs(command: str, tmp_path: Path) -> None:
    assert any(e.get("deferred") for e in ops(command, tmp_path, "exec"))


@pytest.mark.parametrize(
    "command",
    [
        "sshfs dev@build.example.com:/srv/app ./remote",
        "rclone mount gd:photos /tmp/photos --daemon",
        "squashfuse dist/app.sqfs ./mnt",
        "mkdir -p ~/.local/bin",
    ],
)
def test_a_mount_in_the_project_or_tmp_shadows_nothing(command: str, tmp_path: Path) -> None:
    assert not ops(command, tmp_path, "exec") or not any(e.get("deferred") for e in ops(command, tmp_path, "exec"))
    assert all(not e["path"].startswith("/home/u") for e in ops(command, tmp_path, "write") if "mkdir" not in command)


# --- the docker-compatible CLIs (programs.json `container_runs`): a container's words are the container's ---

_ENGINES = ["docker", "podman", "nerdctl", "finch", "lima nerdctl", "nerdctl.lima"]


@pytest.mark.parametrize("engine", _ENGINES)
def test_a_bind_mount_of_the_working_directory_is_judged_alike(engine: str, tmp_path: Path) -> None:
    found = effects(f"{engine} run --rm -v $(pwd):/work alpine ls -la /work", tmp_path)
    assert [(e["op"], e["path"]) for e in found] == [("list", str(tmp_path))]


@pytest.mark.parametrize("engine", _ENGINES)
def test_a_bound_home_file_is_read_through_any_engine(engine: str, tmp_path: Path) -> None:
    found = ops(f"{engine} run --rm -v ~/.ssh:/k alpine cat /k/id_rsa", tmp_path, "read")
    assert any(e["path"] == "/home/u/.ssh/id_rsa" and not e.get("guess") for e in found)


@pytest.mark.parametrize("engine", ["finch", "lima nerdctl", "nerdctl.lima"])
def test_a_container_given_the_host_is_a_privilege_for_any_engine(engine: str, tmp_path: Path) -> None:
    assert ops(f"{engine} run --privileged --pid=host alpine nsenter -t 1 -m sh", tmp_path, "privilege")
