"""A program's command that writes variables into a file later sessions load (env_files; blind-tamper-15,
policies/README.md): `mise set NAME=VALUE` writes `NAME = "VALUE"` into the `[env]` table of the nearest
`mise.toml`, with `-g` of the global config, with `--file` of the one it names (https://mise.jdx.dev/cli/set.html);
fish's `set -U -x NAME VALUE` a universal exported variable into `fish_variables`
(https://fishshell.com/docs/current/cmds/set.html).
The write is given the text it leaves, so what it sets is judged as the same line in that file is."""

from __future__ import annotations

import json

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program


def env_tables_written(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """The catalogue's `env_tables`: after `words`, each `NAME=VALUE` operand (`form` pairs: `NAME VALUE…`) set in
    the file the options pick (`file_options`' value, `global_file` with one of `global_options`, else
    `local_file` where the command runs), when every group of `required` options has one given (fish's `set -U -x`
    exports a universal variable; without them it sets one of this shell only)."""
    given = {o for o, _ in parsed.options}
    letters = {c for o in given if o[:1] == "-" and o[1:2] != "-" for c in o[1:]}
    for table in program.env_tables:
        words = list(table["words"])
        required = table.get("required", ())
        if parsed.operands[: len(words)] != words or not all(_one_given(g, given, letters) for g in required):
            continue
        rest = parsed.operands[len(words) :]
        if table.get("form") == "pairs":
            assigned = [(rest[0], "=", " ".join(rest[1:]))] if len(rest) >= 2 else []
        else:
            assigned = [w.partition("=") for w in rest if "=" in w and not w.startswith("=")]
        if not assigned:
            continue
        named = next((v for o, v in parsed.options if o in table.get("file_options", ()) and v), None)
        chosen = given & set(table.get("global_options", ()))
        file = named or str(table["global_file"] if chosen else table["local_file"])
        target = place(ledger.home + file[1:] if file.startswith("~/") else file)
        if table.get("format") == "fish":  # fish_variables' line for an exported universal variable
            text = "".join(f"SETUVAR --export {k}:{v}\n" for k, _, v in assigned)
        else:  # a TOML basic string is JSON's string with the same escapes
            text = "[env]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, _, v in assigned)
        ledger.contents[target["path"]] = text
        ledger.add("write", target, program.name)


def _one_given(group: list[str], given: set[str], letters: set[str]) -> bool:
    """Whether one option of `group` is given, a short one alone or in a cluster (`-Ux`)."""
    return any(o in given or (o[:1] == "-" and o[1:2] != "-" and o[1:] in letters) for o in group)
