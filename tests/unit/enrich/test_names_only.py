"""A builtin whose words are names or values, not files (`set`, `alias`, `trap`: effects/untabled._NAMES_ONLY), reads
none of them, catalogued or not (fish's `set -U` has an entry for what it writes; bash's `set -- ARGS` sets the
positional parameters: the suite's spelling harness found `{ set -- -i KEY host; ssh "$@"; }` asked as a read)."""

from __future__ import annotations

from pathlib import Path

from effect_support import effects


def test_set_reads_none_of_its_words(tmp_path: Path) -> None:
    line = "{ set -- -i ~/.ssh/deploy_key deploy@ci.example.com 'uptime'; ssh \"$@\"; }"
    assert not [e for e in effects(line, tmp_path) if e["program"] == "set" and e["op"] == "read"]
