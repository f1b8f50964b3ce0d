"""Parse a shell command into `input.shell` (docs/policies.md). Owned by the policies engineer.

Modules: `tree` (the parsed tree), `words` (one word decoded), `parser` (fast lexer, full path, cache),
`sitter` (tree-sitter-bash's tree converted),
`fallback` (a split when nothing parses), `wrappers` (sudo/env/timeout/… peeled; `bash -c` scripts),
`build` (the command objects).

Two stages, so that the slow part can be cached and the common case is fast:

1. *Parse* a script into a small tree (`_Block`, `_Pipe`, `_Simple`), cached per script text.
   A linear lexer (`_FastParser`) reads what agents mostly send: simple commands with any quoting,
   `$VAR`, `$(…)`, backticks, `<(…)`, `$((…))`, joined by pipes, `&&`/`||`/`;`/`&`/newlines, with
   redirects and here-documents. Anything else (subshells, groups, `if`/`for`/`while`, functions,
   comments, `case`, `[[ ]]`, …) goes to the full path: tree-sitter-bash (C, the whole grammar; ~0.25 ms
   a script with the conversion, where bashlex took ~1.4 ms), whose tree is converted to the same tree;
   bashlex where tree-sitter finds a syntax error or leaves a word out. Where both fail, a shlex split
   of the text stands in and the error is reported.
2. *Build* the command objects: wrappers peeled, words resolved as paths against the directory the
   command runs in (followed through `cd`), `bash -c`/`sh -c`/`eval`/`su -c` scripts parsed
   recursively, pipeline numbers assigned.

Words are decoded from the source text by `_read_word` in both parse paths (quote removal, ANSI-C
`$'…'`, `~` and a leading `$HOME`), so both give the same argv. Nothing here raises: any failure
becomes `parse_error: true` with a best-effort split.
"""

from hookd.enrich.home_reach import register_shell_analysis
from hookd.enrich.shell.analysis import analyse_shell, enrich_shell, parse_shell

# later_code judges the lines of the texts a line writes (left_by_shell) with the shell's own analysis; this
# package imports it, so it cannot import this one (registered here, before any module of the package is used)
register_shell_analysis(analyse_shell)

__all__ = ["enrich_shell", "parse_shell"]
