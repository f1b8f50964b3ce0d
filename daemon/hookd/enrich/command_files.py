"""An agent's custom commands, skills and agent definitions: Markdown or TOML files the agent turns into a prompt,
a tool or a subagent LATER, when the user types the command, the model loads the skill or delegates to the agent
(part of the effect model's tool effects: enrich/later_code.py judges what their shell lines run,
enrich/tool_effects.py what they read and what their frontmatter starts). What such a file does is what it holds:

* a command's or skill's `!{…}` and "!`…`" markers run shell lines when it is invoked (Gemini's and Qwen's custom
  commands, Claude Code's commands and skills, OpenCode's commands), and each line's output goes into the prompt:
  the files a line reads reach the model as an `@path` import's do. A `!{…}` ends at the brace that balances its
  opening one (Gemini CLI's parser: `find ~ -exec rm -rf {} +` is one line);
* `@{path}` injects a file's content into the prompt (Gemini's and Qwen's custom commands): a read of that path;
* the YAML frontmatter of a Markdown file (a subagent's `hooks`, a custom agent's `mcp-servers`) is configuration
  whose `command` keys a program runs later, read as a settings text's are (config_commands.commands_in).

Claude Code merged its commands into skills (`.claude/skills/<name>/SKILL.md` and `.claude/commands/<name>.md`
create the same `/name`), so a skill's `SKILL.md` is a command file too."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

MAX_LINES = 16  # the marker lines of one call's texts read; more count as lines that may run anything
MAX_MARKER = 4096
_COMMAND_FILES = (".md", ".toml")
_MARKDOWN = (".md", ".markdown", ".mdx")
_BACKTICK = re.compile(r"!`([^`\n]{1,4096})`")
_INJECTED = re.compile(r"@\{([^{}\n]{1,1024})\}")
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
MAX_FRONTMATTER = 64 * 1024


def is_command_file(path: str) -> bool:
    """An agent's custom command (a Markdown or TOML file in a `commands/` directory) or skill (a `SKILL.md` in
    a `skills/` directory)."""
    name = path.rpartition("/")[2]
    return (path.endswith(_COMMAND_FILES) and "/commands/" in path) or (name == "SKILL.md" and "/skills/" in path)


def is_markdown(path: str) -> bool:
    return path.lower().endswith(_MARKDOWN)


def marker_lines(texts: list[str]) -> list[str]:
    """The shell lines of the texts' `!{…}` (to the balancing brace) and "!`…`" markers, in order; at most one
    more than MAX_LINES (the caller's sign that there are more than it reads)."""
    out: list[str] = []
    for text in texts:
        out += _braced(text) + _BACKTICK.findall(text)
        if len(out) > MAX_LINES:
            return out[: MAX_LINES + 1]
    return out


def _braced(text: str) -> list[str]:
    """Each `!{…}` body, ended by the brace that balances the opening one (not past a line's end); an opening
    with no balancing brace on its line is no marker."""
    out: list[str] = []
    start = text.find("!{")
    while start != -1 and len(out) <= MAX_LINES:
        depth, k = 1, start + 2
        end = min(len(text), k + MAX_MARKER)
        while k < end and depth and text[k] != "\n":
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        if depth == 0 and k - 1 > start + 2:
            out.append(text[start + 2 : k - 1])
        start = text.find("!{", k if depth == 0 else start + 2)
    return out


def prompt_reads(texts: list[str], shell_effects: Callable[[str], list[dict[str, Any]]]) -> list[str]:
    """The files a command's text puts into the prompt when it is invoked: each `@{path}` (as written, to be
    resolved from the project), and each file its marker lines read (as `shell_effects` of the line says)."""
    injected = [m.strip() for text in texts for m in _INJECTED.findall(text) if m.strip()]
    read = [
        str(e["path"])
        for line in marker_lines(texts)[:MAX_LINES]
        for e in shell_effects(line)
        if e.get("op") in ("read", "copy") and e.get("path")
    ]
    return list(dict.fromkeys(injected + read))


def frontmatter(text: str) -> str | None:
    """The YAML frontmatter of a Markdown text (between a first line `---` and the next), or None."""
    if not text.lstrip("\ufeff").startswith("---"):
        return None
    found = _FRONTMATTER.match(text[: MAX_FRONTMATTER + 8])
    return found.group(1) if found else None


def lines_run_later(path: str, texts: list[str]) -> list[str]:
    """The shell lines a command, skill or agent definition runs when it is invoked or delegated to: its markers'
    (a command file's) and the commands its Markdown frontmatter names (a subagent's or skill's `hooks`); none for
    another file."""
    from hookd.enrich.config_commands import commands_in  # it reads settings texts, which import this module's users

    lines = marker_lines(texts)[:MAX_LINES] if is_command_file(path) else []
    if is_markdown(path):
        fronts = (front for text in texts if (front := frontmatter(text)) is not None)
        lines += [line for front in fronts for line in commands_in(front, MAX_LINES)]
    return lines[:MAX_LINES]
