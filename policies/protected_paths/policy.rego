# Protected paths: the agent may not create, modify, move or delete
#   * .env files (.env, .env.local, prod.env; not .env.example/.sample/.template/.dist),
#   * SSH, GnuPG, AWS, gcloud and netrc credentials,
#   * git internals (.git/hooks, .git/config, objects, refs; .gitignore/.gitattributes are fine),
#   (hookd's own files and every agent's hook settings are self_protection's: a set derived at run time,
#   not listed here.)
#
# File tools (kind write/edit) are checked through input.paths (resolved, symlinks followed).
# Shell commands are checked through redirects (>, >>), writers (tee, cp, mv, rm, touch, chmod,
# sed -i, dd of=, ...) and their resolved arguments. Paths are matched by their shape (a `.ssh`
# segment anywhere), not only under input.home, so sudo, $HOME tricks and other users' homes are
# covered too. Lists live in data.json (data.protected_paths).
#
# Two guard-protection rules that are not about a path live here too: `git config` of keys that
# make git run a program (core.hooksPath, core.fsmonitor, ...) and stopping the hookd process.
#
# Performance (this package runs on every write, edit and shell call; see "Writing fast rules" in
# ../README.md): the shell rules first look for a program name they are about (one lookup in
# watched_programs), reading input directly, and `_protected` runs one regex (quick_pattern) before
# the ~25 string tests of the lists.
package hookd.protected_paths

# Shell calls only when a rule here can act on them (docs/policies.md, "Routing"): a writing program or
# one of the other names in watched_programs, `git config`, or a `>` redirect.
routing := {
	"events": ["BeforeTool"],
	"kinds": ["write", "edit", "shell"],
	"commands": array.concat(data.protected_paths.watched_programs, ["git config"]),
	"shell": ["redirect-out"],
}

# ---------------------------------------------------------------------------------------------
# What is written, by whom: file tools (input.paths), redirects and writing programs. (One deny
# rule body per source rather than a set of writes: every rule consulted costs an evaluation.)
# ---------------------------------------------------------------------------------------------

deny contains {"id": m.id, "reason": _reason(_tool_name, e.path, m)} if {
	input.tool.kind in {"write", "edit"}
	input.event == "BeforeTool"
	some e in input.paths
	not e.access == "read"
	some m in _protected(e.path)
}

deny contains {"id": m.id, "reason": _reason(sprintf("redirect %s", [r.op]), r.path, m)} if {
	some c in input.shell.commands
	some r in c.redirects
	contains(r.op, ">")
	is_string(r.path) # null for `2>&1` and here-documents
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some m in _protected(r.path)
}

# The writing programs and the rule about stopping hookd, behind one test of the program names
# (npm, git, ls never get further): watched_programs in data.json lists every name in
# writers_all_args, in_place_editors and writers_last_arg, and dd, find, kill, pkill, killall, systemctl,
# service and launchctl: one lookup instead of four (test_watched_programs checks it).
deny contains v if {
	[1 | some c in input.shell.commands; c.name in data.protected_paths.watched_programs] != [] # once, however many
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some v in _named_deny
}

_named_deny contains {"id": m.id, "reason": _reason(w.via, w.path, m)} if {
	some w in _shell_writes
	some m in _protected(w.path)
}

# A patch whose files hookd cannot know (read from a pipe, from a file it cannot read; a patch tool whose
# patch is in no argument hookd reads): it may write any path above, so it is asked.
ask contains {"id": "unknown-patch", "reason": reason} if {
	some c in input.shell.commands
	c.patch.known == false
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	reason := sprintf("%s applies a patch whose files hookd cannot read: it could write a protected path; review it first", [concat(" ", c.wrappers)])
}

ask contains {"id": "unknown-patch", "reason": reason} if {
	input.tool.kind in {"write", "edit"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.known == false
	e.op != "read"
	reason := sprintf("%s writes files hookd cannot name: it could write a protected path; review it first", [_tool_name])
}

_reason(via, path, m) := sprintf("%s on %s is blocked: %s is protected from the agent", [via, path, m.what])

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "write"

# What the writing programs write: {"path": absolute path, "via": how}
_shell_writes contains {"path": a.path, "via": c.name} if {
	some c in input.shell.commands
	c.name in data.protected_paths.writers_all_args
	some a in c.args
}

_shell_writes contains {"path": a.path, "via": sprintf("%s -i", [c.name])} if {
	some c in input.shell.commands
	c.name in data.protected_paths.in_place_editors
	_in_place(c)
	some a in c.args
}

_shell_writes contains {"path": a.path, "via": c.name} if {
	some c in input.shell.commands
	c.name in data.protected_paths.writers_last_arg
	a := _destinations(c)[_]
}

_shell_writes contains {"path": _resolve(substring(tok, 3, -1)), "via": "dd"} if {
	some c in input.shell.commands
	c.name == "dd"
	some tok in c.argv
	startswith(tok, "of=")
}

# `find DIR … -delete` deletes what it finds under DIR, and DIR itself
_shell_writes contains {"path": a.path, "via": "find -delete"} if {
	some c in input.shell.commands
	c.name == "find"
	"-delete" in c.argv
	end := _find_first_expr(c)
	roots := {tok | some i, tok in c.argv; i >= 1; i < end}
	some a in c.args
	a.raw in roots
}

_find_first_expr(c) := min({i |
	some i, tok in c.argv
	i >= 1
	regex.match(`^[-(!]`, tok)
} | {count(c.argv)})

_in_place(c) if {
	some tok in _opts(c)
	startswith(tok, "-") # cheap gate for the regex
	regex.match(`^-[A-Za-z]*i`, tok)
}

_in_place(c) if {
	some tok in _opts(c)
	startswith(tok, "--in-place")
}

# cp/install/ln/rsync: the last argument, or every argument when -t names the target directory
_destinations(c) := c.args if _has_target_dir(c)

_destinations(c) := [c.args[count(c.args) - 1]] if {
	not _has_target_dir(c)
	count(c.args) > 0
}

_has_target_dir(c) if {
	some tok in _opts(c)
	tok == "-t"
}

_has_target_dir(c) if {
	some tok in _opts(c)
	startswith(tok, "--target-directory")
}

_opts(c) := array.slice(c.argv, 1, count(c.argv))

_project := trim_suffix(input.project_dir, "/")

_resolve(p) := p if startswith(p, "/")

_resolve(p) := concat("", [trim_suffix(input.home, "/"), substring(p, 1, -1)]) if startswith(p, "~/")

_resolve(p) := concat("/", [_project, trim_prefix(p, "./")]) if {
	not startswith(p, "/")
	not startswith(p, "~/")
}

# ---------------------------------------------------------------------------------------------
# What is protected: a set of {"id", "what"} (normally one)
# ---------------------------------------------------------------------------------------------

# Every match contains a text that one regex finds at once (a literal alternation compiles in no
# time): data.json's quick_pattern for the lists (test_quick_pattern checks that every segment,
# file suffix, prefix and pattern prefix contains a match of it; "" turns the shortcut off), and
# `/.git`, `.env` for the rules that are not lists. An ordinary path costs
# that one regex instead of some 25 string tests. Behind it, a segment is looked for with contains
# before the exact segment test, and a pattern runs its regex only under its literal `prefix`.
# (the pattern built inline: a rule holding it costs a file tool's single path ~10 µs more than the concat;
# and the lists and the built-in rules are one function, the lists behind quick_pattern's regex and each
# built-in rule behind its own contains/startswith: a function call costs regorus 2-4 µs, a regex ~3)
_protected(p) := (((({m |
	lists # the lists' regex matched
	some e in data.protected_paths.segments
	contains(p, e.segment)
	_has_segment(p, e.segment)
	m := {"id": e.id, "what": e.what}
} | {m |
	lists
	some e in data.protected_paths.files
	endswith(p, e.suffix)
	m := {"id": e.id, "what": e.what}
}) | {m |
	lists
	some e in data.protected_paths.prefixes
	startswith(p, e.prefix)
	m := {"id": e.id, "what": e.what}
}) | {m |
	lists
	some e in data.protected_paths.patterns
	startswith(p, object.get(e, "prefix", "")) # cheap gate for the regex
	regex.match(e.regex, p)
	m := {"id": e.id, "what": e.what}
}) | {m |
	# the built-in rules, each behind the text its match needs (which the gate's regex looks for)
	contains(p, "/.git")
	_has_segment(p, "/.git")
	m := {"id": "git-internals", "what": "git's internal directory (hooks, config, objects, refs)"}
}) | {m |
	contains(p, ".env")
	parts := split(p, "/") # an .env file (not .env.example), the test written out
	b := parts[count(parts) - 1]
	true in [b == ".env", startswith(b, ".env."), endswith(b, ".env")] # any of
	not _example(b)
	m := {"id": "env-file", "what": "an environment secrets file (.env)"}
} if {
	regex.match(concat("|", [data.protected_paths.quick_pattern, `/\.git|\.env`]), p)
	lists := regex.match(data.protected_paths.quick_pattern, p)
} else := set()

# `/.ssh` matches /home/a/.ssh and /home/a/.ssh/id_rsa, not /home/a/.sshrc
_has_segment(p, seg) if endswith(p, seg)

_has_segment(p, seg) if contains(p, concat("", [seg, "/"]))

_example(b) if {
	some w in split(lower(b), ".")
	w in data.protected_paths.env_example_words
}

# ---------------------------------------------------------------------------------------------
# git config keys that make git run a program (hooksPath pointing at agent-written hooks, ...)
# ---------------------------------------------------------------------------------------------

_git_value_opts := {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env"}

_git_sub_index(c) := min({i |
	some i, tok in c.argv
	i >= 1
	not startswith(tok, "-")
	not c.argv[i - 1] in _git_value_opts
})

_git(c, sub) if {
	c.name == "git"
	c.argv[_git_sub_index(c)] == sub
}

_git_rest(c) := array.slice(c.argv, _git_sub_index(c) + 1, count(c.argv))

_git_config_query(rest) if {
	some tok in rest
	tok in {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset", "--unset-all", "get", "list", "unset"}
}

_exec_key(k) if k in data.protected_paths.git_exec_config_keys

_exec_key(k) if {
	some prefix in data.protected_paths.git_exec_config_prefixes
	startswith(k, prefix)
}

deny contains {"id": "git-internals", "reason": reason} if {
	some c in input.shell.commands
	c.name == "git"
	"config" in c.argv # cheap gate
	_git(c, "config")
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	rest := _git_rest(c)
	not _git_config_query(rest)
	some tok in rest
	_exec_key(lower(tok))
	reason := sprintf("git config %s is blocked: it makes git run another program from .git/config", [tok])
}

# ---------------------------------------------------------------------------------------------
# Stopping the guard itself
# ---------------------------------------------------------------------------------------------

_stops(c) if c.name in {"kill", "pkill", "killall"}

_stops(c) if {
	c.name in {"systemctl", "service", "launchctl"}
	some tok in c.argv
	tok in {"stop", "disable", "mask", "kill", "restart", "unload", "bootout", "remove"}
}

# `hookd uninstall` (or `hookd install --remove`-like forms): the agent taking its own guard away.
_named_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in input.shell.commands
	c.name == "hookd"
	some tok in c.argv
	tok in {"uninstall", "stop", "--remove"}
	reason := sprintf("%q is blocked: it would remove or stop hookd, the guard of this session", [concat(" ", c.argv)])
}

_named_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in input.shell.commands
	c.name in {"kill", "pkill", "killall", "systemctl", "service", "launchctl"} # cheap gate
	_stops(c)
	some tok in _opts(c)
	some name in data.protected_paths.guard_process_names
	contains(lower(tok), name)
	reason := sprintf("%q is blocked: it would stop hookd, the guard of this session", [concat(" ", c.argv)])
}
