"""What blind-benign-14's first run showed (policies/README.md, "A fourteenth blind batch, benign only"): the state a
program prints is the one in the directory its working-directory option names."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _printed(command: str, proj: Path) -> list[str]:
    return [e["path"] for e in ops(command, proj, "read") if e.get("secret_output")]


@pytest.mark.parametrize(
    ("command", "state"),
    [
        ("terraform -chdir=infra show -json tfplan > out/tfplan.json", "infra/terraform.tfstate"),
        ("terraform -chdir=infra/envs/dev/ state pull", "infra/envs/dev/terraform.tfstate"),
        ("terraform show -json", "terraform.tfstate"),  # no option: the agent's directory
        ("terraform -no-color -chdir=infra show -json", "infra/terraform.tfstate"),  # among other global options
        ("terraform show -json -chdir=infra", "terraform.tfstate"),  # after the subcommand it is no global option
        ("terraform -chdir= show -json", "terraform.tfstate"),  # an empty directory is none
    ],
)
def test_a_printed_state_is_read_where_the_working_directory_option_puts_terraform(
    command: str, state: str, proj: Path
) -> None:
    assert _printed(command, proj) == [str(proj / state)]


def test_a_store_in_the_home_is_not_moved_by_the_option(proj: Path) -> None:
    printed = _printed("gh auth token", proj)
    assert printed and all(not p.startswith(str(proj)) for p in printed)
