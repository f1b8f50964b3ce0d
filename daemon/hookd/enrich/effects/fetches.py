"""The effects of programs that fetch URLs (curl, wget, httpie, …: docs/policies.md, "The effect model")."""

from __future__ import annotations

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import _dynamic


def fetch_effects(
    model: Ledger, program: Program, parsed: Parsed, operands: list[str], place: Place, name: str
) -> None:
    """What a downloader fetches, and the file it writes under the URL's name (`curl -O`, `wget URL`)."""
    if program.at_file_args and operands[:1] and operands[0].isalpha() and operands[0].isupper():
        operands = operands[1:]  # httpie's optional METHOD before the URL
    urls = operands[:1] if program.operands == "fetch-first" else operands
    urls += [v for o, v in parsed.options if o == "--url" and v]
    remote = any(o in program.remote_name for o, _ in parsed.options) or (
        "" in program.remote_name and not any(program.option_ops.get(o) == "write-fetched" for o, _ in parsed.options)
    )
    for url in urls:
        model.add("fetch", None, name, url=url, known=not _dynamic(url))
        if remote and "/" in url:
            base = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            if base:
                effect = model.add("write", place(base), name)
                if effect["path"]:
                    model.produced[effect["path"]] = "fetch"
