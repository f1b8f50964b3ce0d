"""What a filter program prints of the files it reads (gaps38): jq's filter, its first operand, decides what of each
JSON file reaches the output (https://jqlang.github.io/jq/manual/). A filter that walks to a value by names only
(`.auths`, `.["a b"]`, `.x[]`) and ends in `keys`, `keys[]`, `keys_unsorted` or `length` prints the names of that
value's keys or a count, never a value: the files it reads are marked `shows: "names"`, and secret_reads does not
judge such a read as the credentials' read. Anything else in the filter (a comma, a function, `debug`, `stderr`,
`input`, `$__loc__`, a string interpolation) and any option that reads a file or takes the filter from one (`-f`,
`--rawfile`, `--slurpfile`, `--args`) leaves the read as it was."""

from __future__ import annotations

import re
from typing import Any

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.options import Parsed

_STEP = r"""(?:\.[A-Za-z_][A-Za-z0-9_]*|\.\["[A-Za-z0-9_ .:/@-]*"\]|\[\]|\.)"""
_NAMES_ONLY = re.compile(rf"\s*(?:{_STEP}\s*)*(?:\|\s*)?(?:keys_unsorted|keys|length)(?:\[\])?\s*")
# options that print nothing of a file's values or only change the output's form (jq's "Invoking jq")
_FORM_ONLY = frozenset({"-r", "-j", "-c", "-C", "-M", "-S", "-e", "-a", "--raw-output", "--join-output",
                        "--compact-output", "--color-output", "--monochrome-output", "--sort-keys", "--exit-status",
                        "--ascii-output", "--tab", "--indent"})  # fmt: skip


def mark_names_only(effects: list[dict[str, Any]], program: Program, parsed: Parsed) -> None:
    """Mark the reads among `effects` (one command's) of the files a names-only filter is given."""
    if program.filter_lang != "jq" or len(parsed.operands) < 2 or not names_only(parsed.operands[0]):
        return
    if any(option not in _FORM_ONLY for option, _ in parsed.options):
        return
    files = set(parsed.operands[1:])
    for effect in effects:
        if effect["op"] == "read" and effect.get("raw") in files:
            effect["shows"] = "names"


def names_from_pipe(printed: list[dict[str, Any]], program: Program, parsed: Parsed, piped: bool) -> None:
    """`kubectl get secret s -o json | jq '.data | keys'`: what the command before printed (a credential) reaches
    the output through a names-only filter as its keys' names: marked `shows: "names"`, as a file so filtered is."""
    if not piped or program.filter_lang != "jq" or len(parsed.operands) != 1 or not names_only(parsed.operands[0]):
        return
    if any(option not in _FORM_ONLY for option, _ in parsed.options):
        return
    for effect in printed:
        effect["shows"] = "names"


def names_only(jq_filter: str) -> bool:
    return len(jq_filter) <= 1024 and _NAMES_ONLY.fullmatch(jq_filter) is not None
