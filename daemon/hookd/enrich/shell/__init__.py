"""Parse a shell command into `input.shell` (docs/policies.md). Owned by the policies engineer.

Modules: `tree` (the parsed tree), `words` (one word decoded), `parser` (fast lexer, bashlex, cache),
`fallback` (a split when nothing parses), `wrappers` (sudo/env/timeout/… peeled; `bash -c` scripts),
`build` (the command objects).

Two stages, so that the slow part can be cached and the common case is fast:

1. *Parse* a script into a small tree (`_Block`, `_Pipe`, `_Simple`), cached per script text.
   A linear lexer (`_FastParser`) reads what agents mostly send: simple commands with any quoting,
   `$VAR`, `$(…)`, backticks, `<(…)`, `$((…))`, joined by pipes, `&&`/`||`/`;`/`&`/newlines, with
   redirects and here-documents. Anything else (subshells, groups, `if`/`for`/`while`, functions,
   comments, …) goes to bashlex (pure Python: ~1.5-3 ms where the lexer takes ~0.1 ms), whose AST
   is converted to the same tree. Where bashlex fails too, a shlex split of the text stands in and
   the error is reported.
2. *Build* the command objects: wrappers peeled, words resolved as paths against the directory the
   command runs in (followed through `cd`), `bash -c`/`sh -c`/`eval`/`su -c` scripts parsed
   recursively, pipeline numbers assigned.

Words are decoded from the source text by `_read_word` in both parse paths (quote removal, ANSI-C
`$'…'`, `~` and a leading `$HOME`), so both give the same argv. Nothing here raises: any failure
becomes `parse_error: true` with a best-effort split.
"""

from hookd.enrich.shell.build import enrich_shell, parse_shell

__all__ = ["enrich_shell", "parse_shell"]
