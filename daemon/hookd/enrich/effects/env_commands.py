"""A program's command that writes variables into a file later sessions load (env_files; blind-tamper-15,
policies/README.md): `mise set NAME=VALUE` writes `NAME = "VALUE"` into the `[env]` table of the nearest
`mise.toml`, with `-g` of the global config, with `--file` of the one it names (https://mise.jdx.dev/cli/set.html);
fish's `set -U -x NAME VALUE` a universal exported variable into `fish_variables`
(https://fishshell.com/docs/current/cmds/set.html).
The write is given the text it leaves, so what it sets is judged as the same line in that file is."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

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
        if any(_one_given([o], given, letters) for o in table.get("unless", ())):
            continue
        assigned = _assigned(table, parsed.operands[len(words) :], _one_given(table.get("appends", []), given, letters))
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


def _assigned(table: Mapping[str, Any], rest: list[str], appends: bool) -> list[tuple[str, str, str]]:
    """(NAME, "=", VALUE) for each variable the words set. A fish list is exported joined by `:` when its name ends
    in PATH, by spaces otherwise; `form` `path`: each word a directory put before `$PATH` (after it when `appends`),
    as `fish_add_path` does; `renames`: only these names, as the variable they are (`fish_user_paths` is put
    before PATH in every fish: `PATH={}:$PATH`)."""
    if table.get("form") == "path":
        joined = ":".join(rest)
        assigned = [("PATH", "=", f"$PATH:{joined}" if appends else f"{joined}:$PATH")] if rest else []
    elif table.get("form") == "pairs":
        glue = ":" if rest[:1] and (rest[0].endswith("PATH") or rest[0] in table.get("renames", {})) else " "
        assigned = [(rest[0], "=", glue.join(rest[1:]))] if len(rest) >= 2 else []
    else:
        assigned = [w.partition("=") for w in rest if "=" in w and not w.startswith("=")]
    renames: dict[str, str] = table.get("renames", {})  # NAME -> `OTHER=…{}…`, the value put where `{}` is
    if renames:  # (its own earlier value, `$fish_user_paths`, is what stood before OTHER already: `$OTHER`)
        assigned = [
            (
                r := renames[k].partition("=")[0],
                "=",
                renames[k].partition("=")[2].replace("{}", v.replace(f"${k}", f"${r}")),
            )
            for k, _, v in assigned
            if k in renames
        ]
    return assigned


def _one_given(group: list[str], given: set[str], letters: set[str]) -> bool:
    """Whether one option of `group` is given, a short one alone or in a cluster (`-Ux`)."""
    return any(o in given or (o[:1] == "-" and o[1:2] != "-" and o[1:] in letters) for o in group)
