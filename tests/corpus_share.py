"""The share of the corpus that the corpus-wide differential tests run on.

Each of them compares a short route with the full computation (or one parser with another) over the
payloads of the corpus; the whole corpus's verdicts run once, in tests/integration/test_corpus_verdicts.py. Run on every
payload they cost more than the rest of the unit tests together (13,600 lines at 2026-12-07), so each runs on
a fixed share: 1 in SHARE corpus lines, chosen by a hash of the line, so that a run sees the same share as the
last and a new line joins it or not for good. Real OPA's run of the corpus (tests/integration/test_opa_cli.py)
takes a wider share, 1 in OPA_SHARE lines. `HOOKD_WHOLE_CORPUS=1` runs them on every line (docs/development.md),
as before a change to a route they compare or to the engines.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

SHARE = 12
OPA_SHARE = 3


def whole_corpus() -> bool:
    return os.environ.get("HOOKD_WHOLE_CORPUS") == "1"


def in_share(item: Any, part: int = 0, share: int = SHARE) -> bool:
    """Whether `item` (a command, a payload: anything JSON) is in part `part` of the `share` parts."""
    if whole_corpus():
        return True
    text = item if isinstance(item, str) else json.dumps(item, sort_keys=True)
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) % share == part % share
