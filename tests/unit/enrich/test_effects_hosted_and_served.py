"""Hosted resources deleted through a forge's REST API, a directory served to the network, and git grep's
search (blind-shell-4's third group): the effects they now have."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


@pytest.mark.parametrize(
    ("command", "what", "name"),
    [
        ("gh api -X DELETE repos/acme/api", "repository", "acme/api"),
        ("gh api repos/acme/api --method=DELETE", "repository", "acme/api"),
        ("curl -s -X DELETE https://api.github.com/repos/acme/api", "repository", "acme/api"),
        ("curl --request DELETE https://gitlab.com/api/v4/projects/42", "repository", "42"),
        ("http DELETE https://api.bitbucket.org/2.0/repositories/acme/api", "repository", "acme/api"),
        ("curl -X DELETE https://ghe.example.com/api/v3/repos/acme/api", "repository", "acme/api"),
        ("gh api -X DELETE repos/acme/api/git/refs/heads/main", "hosted", "repos/acme/api/git/refs/heads/main"),
        ("glab api -X DELETE projects/42/repository/branches/main", "hosted", "projects/42/repository/branches/main"),
    ],
)
def test_a_delete_through_a_forge_api_removes_a_hosted_resource(
    command: str, what: str, name: str, tmp_path: Path
) -> None:
    assert [(e["what"], e["name"]) for e in ops(command, tmp_path, "delete")] == [(what, name)]


@pytest.mark.parametrize(
    "command",
    [
        "gh api repos/acme/api",
        "gh api -X PATCH repos/acme/api -f description=x",
        "curl -X DELETE http://localhost:3000/api/items/1",
        "gh pr create -t x -b y",
    ],
)
def test_other_api_calls_delete_nothing_hosted(command: str, tmp_path: Path) -> None:
    assert ops(command, tmp_path, "delete") == []


@pytest.mark.parametrize(
    ("command", "served"),
    [
        ("python3 -m http.server 8000 --bind 0.0.0.0 --directory ~", HOME),
        ("python3 -m http.server -d ~/", HOME),
        ("php -S 0.0.0.0:8080 -t ~", HOME),
        ("npx serve ~", HOME),
        ("python3 -m http.server 8000", "{proj}"),
    ],
)
def test_a_file_server_reads_the_whole_directory_it_serves(command: str, served: str, tmp_path: Path) -> None:
    reads = [e for e in ops(command, tmp_path, "read") if e.get("served")]
    assert [(e["path"], e["recursive"]) for e in reads] == [(served.format(proj=tmp_path), True)]


def test_php_without_its_server_serves_nothing(tmp_path: Path) -> None:
    assert [e for e in ops("php -r 'echo 1;'", tmp_path, "read") if e.get("served")] == []


def test_git_grep_reads_every_file_below_the_directory_a_cd_set(tmp_path: Path) -> None:
    reads = ops("cd ~ && git grep --no-index -I -i -n password", tmp_path, "read")
    assert [(e["path"], e["recursive"]) for e in reads] == [(HOME, True)]
