"""benign44 (blind-benign-18): the value of an option that takes a pattern (go test's `-run`, `-bench`, `-skip`,
`-fuzz`, `-list`: regular expressions over test names) names no file, so `-bench .` does not hand go the directory
whose files the line wrote (hookd.enrich.effects.loaded's `_handed_words`, the catalogue's `pattern_options`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

SCRIPT = "cat > bench.sh <<'EOF'\n#!/bin/sh\ngo test -run '^$' -bench . ./internal/grid | tee bench.txt\nEOF\n"


def _loaded(command: str, proj: Path) -> list[tuple[str, bool]]:
    return [(e["path"], e["known"]) for e in effects(command, proj) if e["op"] == "exec" and e.get("loaded")]


@pytest.mark.parametrize(
    "run",
    [
        "go test -run '^$' -bench . -benchmem ./internal/grid",
        "go test -bench=. ./internal/grid",
        "go test -skip . -list . ./...",
        "chmod +x bench.sh\n./bench.sh",  # the script's own line, walked one level deeper
    ],
)
def test_a_pattern_option_hands_no_directory(run: str, proj: Path) -> None:
    assert _loaded(SCRIPT + run, proj) == []  # was the written script loaded by go as code it cannot see (asked)


def test_a_file_go_is_handed_is_still_loaded(proj: Path) -> None:
    assert _loaded("echo x > tool.sh; go test -exec ./tool.sh ./...", proj) == [(str(proj / "tool.sh"), False)]
    assert _loaded("echo 'package main' > m.go; go run -race m.go", proj) == [(str(proj / "m.go"), False)]
