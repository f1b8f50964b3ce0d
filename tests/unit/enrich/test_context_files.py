"""Settings that load files into every session's context (hookd.enrich.context_files), and the import reads
the effect model makes of them: Gemini's `context.fileName` naming `.env`, OpenCode's `instructions` naming a
credential file (blind-tools-5); other agents' spellings of the same key words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.enrich.context_files import context_files
from tests.unit.enrich.test_tool_effects import HOME, enriched


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"context": {"fileName": ["AGENTS.md", ".env"]}}', ["AGENTS.md", ".env"]),
        ('{"instructions": ["CONTRIBUTING.md", "~/.aws/credentials"]}', ["CONTRIBUTING.md", "~/.aws/credentials"]),
        ('[memory]\nfile_paths = ["~/.ssh/id_rsa"]\n', ["~/.ssh/id_rsa"]),  # TOML, another agent's words
        ('{"customInstructions": "docs/style.md"}', ["docs/style.md"]),
        ('{"theme": "dark", "files": ["a.md"], "context": {"limit": 3}}', []),  # no loading key
    ],
)
def test_keys_whose_words_say_they_load_files(text: str, names: list[str]) -> None:
    assert context_files(["/p/settings.json"], lambda: [text]) == names


def test_only_settings_files_are_parsed() -> None:
    def never() -> list[str]:
        raise AssertionError("texts asked for a write of no settings file")

    assert context_files(["/p/src/app.py", "/p/README.md"], never) == []


def test_the_named_files_are_import_reads(proj: Path) -> None:
    text = json.dumps({"context": {"fileName": ["GEMINI.md", ".env"]}, "instructions": ["~/.aws/credentials"]})
    event = enriched("gemini", "write_file", {"file_path": ".gemini/settings.json", "content": text}, proj)
    reads = {(e["import"], e["path"]) for e in event.facts["effects"] if e.get("import")}
    assert reads == {("GEMINI.md", f"{proj}/GEMINI.md"), (".env", f"{proj}/.env"),
                     ("~/.aws/credentials", f"{HOME}/.aws/credentials")}  # fmt: skip
