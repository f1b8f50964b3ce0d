"""benign45 (noticed closing blind-benign-19): a loop over a search's listing (`for f in $(find . -type f)`,
`find . -type f | while read f`) read only the listed root (`from_stdin`), whose `.env` the rules do not look
for: a live key was read unasked, while `find . -type f | xargs cat` was judged per file. The loop's reads are now
judged on each file the search selects on disk too (hookd.enrich.effects.listings' `selects`, the ledger's
`_from_listing`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


@pytest.fixture
def tree(proj: Path) -> Path:
    (proj / "src").mkdir()
    (proj / "src" / "a.ts").write_text("export {};\n")
    (proj / ".env").write_text("API_KEY=live\n")
    return proj


def _reads(command: str, proj: Path) -> set[str]:
    return {str(e["path"]) for e in effects(command, proj) if e["op"] == "read" and e["known"]}


@pytest.mark.parametrize(
    "command",
    [
        'for f in $(find . -type f); do cat "$f"; done',
        'find . -type f | while read -r f; do cat "$f"; done',
        'for f in `find . -name ".env*"`; do head "$f"; done',
        'find . -iname ".ENV" | while IFS= read -r f; do cat "$f"; done',
    ],
)
def test_a_loop_over_a_search_reads_what_it_selects(command: str, tree: Path) -> None:
    assert str(tree / ".env") in _reads(command, tree)  # was the listed root only


def test_a_narrow_search_reads_only_its_selection(tree: Path) -> None:
    reads = _reads('for f in $(find src -name "*.ts"); do wc -l "$f"; done', tree)
    assert str(tree / "src/a.ts") in reads and str(tree / ".env") not in reads
