"""Brace alternatives of a glob (`*.{ts,tsx}`), as ripgrep's and the agents' glob libraries take them: used by
hookd.enrich.paths for the globs of file tools."""

from __future__ import annotations

import itertools

MAX_BRACE_ALTERNATIVES = 64


def expand_braces(pattern: str, limit: int = MAX_BRACE_ALTERNATIVES) -> list[str] | None:
    """`a{b,c}d` as [`abd`, `acd`] (nested too, as ripgrep's globs take them); None past `limit`."""
    out: list[str] = []
    todo = [pattern]
    while todo:
        text = todo.pop()
        start = text.find("{")
        end, depth, cuts = -1, 0, []
        for i in range(start + 1, len(text)) if start >= 0 else ():
            char = text[i]
            if char == "{":
                depth += 1
            elif char == "}" and depth:
                depth -= 1
            elif char == "}":
                end = i
                break
            elif char == "," and not depth:
                cuts.append(i)
        if end < 0 or not cuts:
            out.append(text)
        else:
            bounds = [start, *cuts, end]
            todo.extend(text[:start] + text[a + 1 : b] + text[end + 1 :] for a, b in itertools.pairwise(bounds))
        if len(out) + len(todo) > limit:
            return None
    return out[::-1]
