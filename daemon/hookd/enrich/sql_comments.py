"""SQL as each database's lexer leaves it outside its comments (languages.json `sql.lexers`, the effect model's
reading of SQL code: MySQL's `#` and `-- `, PostgreSQL's `--` and nested `/* */`; a comment marker inside a string
literal stays text), for the readers of SQL outside the effect model: a database tool's SQL argument
(tool_args). A quote inside a comment (`-- it's`, `# don't`) then pairs with no string literal's quote, so the
literals after it are read as the database reads them."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

_LANGUAGES = Path(__file__).parent / "effects" / "data" / "languages.json"  # (read as data: effects imports us)


@functools.cache
def _lexers() -> tuple[re.Pattern[str], ...]:
    spec = json.loads(_LANGUAGES.read_text(encoding="utf-8"))["languages"]["sql"]
    return tuple(re.compile(pattern) for pattern in spec["lexers"])


def uncommented(sql: str) -> list[str]:
    """`sql` as each lexer leaves it outside its comments (each reading once), a comment a space."""
    readings = (lexer.sub(lambda m: " " if m.group("inert") is not None else m.group(0), sql) for lexer in _lexers())
    return list(dict.fromkeys(readings))
