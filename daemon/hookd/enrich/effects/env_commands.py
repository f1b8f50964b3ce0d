"""A program's command that writes variables into a file later sessions load (env_files; blind-tamper-15,
policies/README.md): `mise set NAME=VALUE` writes `NAME = "VALUE"` into the `[env]` table of the nearest
`mise.toml`, with `-g` of the global config, with `--file` of the one it names (https://mise.jdx.dev/cli/set.html).
The write is given the text it leaves, so what it sets is judged as the same line in that file is."""

from __future__ import annotations

import json

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program


def env_tables_written(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """The catalogue's `env_tables`: after `words`, each `NAME=VALUE` operand set in the file the options pick
    (`file_options`' value, `global_file` with one of `global_options`, else `local_file` where the command runs)."""
    given = {o for o, _ in parsed.options}
    for table in program.env_tables:
        words = list(table["words"])
        if parsed.operands[: len(words)] != words:
            continue
        assigned = [w.partition("=") for w in parsed.operands[len(words) :] if "=" in w and not w.startswith("=")]
        if not assigned:
            continue
        named = next((v for o, v in parsed.options if o in table.get("file_options", ()) and v), None)
        chosen = given & set(table.get("global_options", ()))
        file = named or str(table["global_file"] if chosen else table["local_file"])
        target = place(ledger.home + file[1:] if file.startswith("~/") else file)
        # a TOML basic string is JSON's string with the same escapes
        ledger.contents[target["path"]] = "[env]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, _, v in assigned)
        ledger.add("write", target, program.name)
