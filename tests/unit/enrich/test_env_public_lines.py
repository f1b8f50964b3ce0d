"""An env file's change is public only line by line as dotenv splits it (enrich/env_template.py): a form feed or a
Unicode line separator is no line end to dotenv nor to grep, so it cannot make a secret's line look public."""

from __future__ import annotations

import pytest

from hookd.enrich.env_template import public_change

BEFORE = "API_SECRET=s3cr3t\nVITE_A=1\n"


@pytest.mark.parametrize("sep", ["\f", "\r", "\u2028", "\x1e", "\x85", "\v"])
def test_a_secret_joined_to_a_public_line_is_no_public_change(sep: str) -> None:
    assert not public_change(BEFORE, BEFORE.replace("API_SECRET=", f"VITE_B=1{sep}API_SECRET="))


def test_public_lines_changed_are_a_public_change() -> None:
    assert public_change(BEFORE, "API_SECRET=s3cr3t\nVITE_A=2\nVITE_B=x\r\n")
