"""Every store of a kind deleted through the program's own listing of it (enrich/effects/listed_all.py): the hosted
delete a sweep of the local engine's named volumes is."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _hosted(command: str, proj: Path) -> bool:
    return any(e.get("what") == "hosted" for e in ops(command, proj, "delete"))


@pytest.mark.parametrize(
    "command",
    [
        "docker volume rm -f $(docker volume ls -q)",
        "docker volume rm `docker volume ls --quiet`",
        "docker volume ls -q | xargs -r docker volume rm -f",
        "docker volume ls --format '{{.Name}}' | xargs docker volume rm",
        "podman volume rm $(podman volume list -q)",
    ],
)
def test_a_delete_given_the_whole_listing_of_volumes_sweeps_them(command: str, tmp_path: Path) -> None:
    assert _hosted(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "docker volume rm $(docker volume ls -qf dangling=true)",
        "docker volume ls -q --filter name=app_ | xargs docker volume rm",
        "docker volume ls -q | grep app_ | xargs docker volume rm",
        "docker volume rm $(docker volume ls -q | grep app_)",
        "docker volume rm app_db",
        "docker rm -f $(docker ps -aq)",
        "cat volumes.txt | xargs docker volume rm",
    ],
)
def test_a_listing_that_keeps_some_or_names_one_sweeps_nothing(command: str, tmp_path: Path) -> None:
    assert not _hosted(command, tmp_path)
