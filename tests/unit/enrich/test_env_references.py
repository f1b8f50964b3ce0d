"""A dotenv file whose every value names its secret instead of holding it (1Password's `op://` references, another
variable's expansion, a number or a flag under a name that is no credential's) is marked `holds: "no-secret"` when
read (hookd.enrich.holdings): blind-benign-16's Read of `.env.tpl`, a file of 1Password references beside `PORT=3000`,
was denied as an env file. One literal text value anywhere, and the file is judged by its name as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.holdings import holds_no_secret_values, mark_holdings


@pytest.mark.parametrize(
    "text",
    [
        "DATABASE_URL=op://Dev/storefront-db/connection-string\nSTRIPE_SECRET_KEY=op://Dev/stripe-test/credential\n"
        "PORT=3000\n",
        "# resolved by op run\nexport API_TOKEN='op://prod/api/section/token'\nDEBUG=false\n",
        'DB_PASSWORD="{{ op://prod/database/password }}"  # op inject\nDB_URL=${DATABASE_URL}\nEMPTY=\n',
    ],
)
def test_a_file_of_references_holds_no_secret(text: str, tmp_path: Path) -> None:
    path = tmp_path / ".env.tpl"
    path.write_text(text)
    assert holds_no_secret_values(str(path))


@pytest.mark.parametrize(
    "text",
    [
        "API_KEY=op://Dev/x/credential\nNODE_ENV=development\n",  # a literal text value
        "DB_PASSWORD=123456\n",  # a number under a credential's name
        'CREDS={"private_key": "x"}\n',
        'KEY="op://a/b/c\n',  # a value continued on the next line
        "op run -- npm start\n",  # not a dotenv line
        "# only a comment\n",
        "TOKEN=op://a/b\n",  # no item and field: not a reference
    ],
)
def test_a_file_with_anything_else_is_judged_by_its_name(text: str, tmp_path: Path) -> None:
    path = tmp_path / "prod.env"
    path.write_text(text)
    assert not holds_no_secret_values(str(path))


def test_only_dotenv_files_are_read_for_it(tmp_path: Path) -> None:
    path = tmp_path / "config.yml"
    path.write_text("PORT=3000\n")
    assert not holds_no_secret_values(str(path))
    assert not holds_no_secret_values(str(tmp_path / ".env"))  # none there


def test_the_read_is_marked(tmp_path: Path) -> None:
    path = tmp_path / ".env.tpl"
    path.write_text("STRIPE_SECRET_KEY=op://Dev/stripe-test/credential\n")
    read = {"op": "read", "path": str(path), "recursive": False}
    assert mark_holdings([read], "/home/u", str(tmp_path))[0]["holds"] == "no-secret"
    write = {"op": "write", "path": str(path), "recursive": False}
    assert "holds" not in mark_holdings([write], "/home/u", str(tmp_path))[0]


_KEY = "sk_live_51HqLyjWDarjtT1zdp7dcXw9pQm3KxR2vTn8bYc4eF6gH7iJ0kL"


@pytest.mark.parametrize(
    "text",
    [
        f"STRIPE_SECRET_KEY=op://Dev/stripe/credential\n# old: STRIPE_SECRET_KEY={_KEY}\nPORT=3000\n",
        f"STRIPE_SECRET_KEY=op://Dev/stripe/credential\n#{_KEY}\n",
        f"STRIPE_SECRET_KEY=op://Dev/stripe/credential # was {_KEY}\n",
        f"STRIPE_SECRET_KEY='op://Dev/stripe/credential' # was {_KEY}\n",
        f"STRIPE_SECRET_KEY=op://Dev/stripe/{_KEY}\n",  # the key as a reference's segment
        f"STRIPE_SECRET_KEY={{{{ op://Dev/{_KEY}/credential }}}}\n",
        "VAULT_UNSEAL=83920174659201746592\n",  # a number-shaped secret under a plain name
        "BANK_ACCOUNT=004512998877665\n",
    ],
)
def test_every_byte_of_the_file_is_accounted_for(text: str, tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(text)
    assert not holds_no_secret_values(str(path))  # was no-secret: comments, segments and numbers unread


@pytest.mark.parametrize(
    "text",
    [
        "# Moved to the team's vault (resolved by op run).\nSTRIPE_SECRET_KEY=op://Dev/stripe-2024/credential\n",
        "PORT=3000  # the dev server's port\nMAX_UPLOAD_BYTES=10485760\nWORKERS=0\n",
    ],
)
def test_prose_comments_and_quantities_are_accounted_for(text: str, tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text(text)
    assert holds_no_secret_values(str(path))
