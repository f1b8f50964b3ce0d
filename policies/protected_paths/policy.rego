# Protected paths: the agent may not create, modify, move or delete
#   * .env files (.env, .env.local, prod.env; not .env.example/.sample/.template/.dist),
#   * SSH, GnuPG, AWS, gcloud and netrc credentials,
#   * git internals (.git/hooks, .git/config, objects, refs; .gitignore/.gitattributes are fine),
#   * hookd's own configuration and runtime state,
#   * the agent's hook settings (Gemini/Claude settings, extensions, plugins), so that an agent
#     cannot unregister the guard that watches it.
#
# File tools (kind write/edit) are checked through input.paths (resolved, symlinks followed).
# Shell commands are checked through redirects (>, >>), writers (tee, cp, mv, rm, touch, chmod,
# sed -i, dd of=, ...) and their resolved arguments. Paths are matched by their shape (a `.ssh`
# segment anywhere), not only under input.home, so sudo, $HOME tricks and other users' homes are
# covered too. Lists live in data.json (data.protected_paths).
#
# Two guard-protection rules that are not about a path live here too: `git config` of keys that
# make git run a program (core.hooksPath, core.fsmonitor, ...) and stopping the hookd process.
package hookd.protected_paths

routing := {"events": ["BeforeTool"], "kinds": ["write", "edit", "shell"]}

_cfg := data.protected_paths

_file_tool if {
	input.event == "BeforeTool"
	input.tool.kind in {"write", "edit"}
}

_shell if {
	input.event == "BeforeTool"
	input.tool.kind == "shell"
}

_cmds := input.shell.commands if _shell

deny contains {"id": m.id, "reason": reason} if {
	some w in _writes
	some m in _protected(w.path)
	reason := sprintf("%s on %s is blocked: %s is protected from the agent", [w.via, w.path, m.what])
}

# ---------------------------------------------------------------------------------------------
# What is written: {"path": absolute path, "via": how}
# ---------------------------------------------------------------------------------------------

_writes contains {"path": e.path, "via": _tool_name} if {
	_file_tool
	some e in input.paths
	not e.access == "read"
}

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "write"

_writes contains {"path": r.path, "via": sprintf("redirect %s", [r.op])} if {
	some c in _cmds
	some r in c.redirects
	contains(r.op, ">")
	is_string(r.path) # null for `2>&1` and here-documents
}

_writes contains {"path": a.path, "via": c.name} if {
	some c in _cmds
	c.name in _cfg.writers_all_args
	some a in c.args
}

_writes contains {"path": a.path, "via": sprintf("%s -i", [c.name])} if {
	some c in _cmds
	c.name in _cfg.in_place_editors
	_in_place(c)
	some a in c.args
}

_writes contains {"path": a.path, "via": c.name} if {
	some c in _cmds
	c.name in _cfg.writers_last_arg
	a := _destinations(c)[_]
}

_writes contains {"path": _resolve(substring(tok, 3, -1)), "via": "dd"} if {
	some c in _cmds
	c.name == "dd"
	some tok in c.argv
	startswith(tok, "of=")
}

_in_place(c) if {
	some tok in _opts(c)
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

_protected(p) := union({
	{m |
		some e in _cfg.segments
		_has_segment(p, e.segment)
		m := {"id": e.id, "what": e.what}
	},
	{m |
		some e in _cfg.files
		endswith(p, e.suffix)
		m := {"id": e.id, "what": e.what}
	},
	{m |
		some e in _cfg.prefixes
		startswith(p, e.prefix)
		m := {"id": e.id, "what": e.what}
	},
	{m |
		some e in _cfg.patterns
		regex.match(e.regex, p)
		m := {"id": e.id, "what": e.what}
	},
	{m |
		_hookd_runtime(p)
		m := {"id": "hookd-state", "what": "hookd's runtime directory"}
	},
	{m |
		_claude_settings(p)
		m := {"id": "agent-hook-settings", "what": "Claude Code settings, where hookd's hooks are registered"}
	},
	{m |
		_has_segment(p, "/.git")
		m := {"id": "git-internals", "what": "git's internal directory (hooks, config, objects, refs)"}
	},
	{m |
		_env_file(p)
		m := {"id": "env-file", "what": "an environment secrets file (.env)"}
	},
})

# `/.ssh` matches /home/a/.ssh and /home/a/.ssh/id_rsa, not /home/a/.sshrc
_has_segment(p, seg) if endswith(p, seg)

_has_segment(p, seg) if contains(p, concat("", [seg, "/"]))

# ${XDG_RUNTIME_DIR}/hookd/** (XDG variables are not in the input, so any hookd dir under
# /run/user); the fallback /tmp/hookd-<uid> is in data.json `patterns`
_hookd_runtime(p) if {
	startswith(p, "/run/user/")
	_has_segment(p, "/hookd")
}

_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

_parent_name(p) := parts[count(parts) - 2] if {
	parts := split(p, "/")
	count(parts) >= 2
}

# ~/.claude/settings.json, <project>/.claude/settings.local.json, ...
_claude_settings(p) if {
	_parent_name(p) == ".claude"
	regex.match(`^settings.*\.json$`, _basename(p))
}

_env_file(p) if {
	b := _basename(p)
	_env_name(b)
	not _example(b)
}

_env_name(b) if b == ".env"

_env_name(b) if startswith(b, ".env.")

_env_name(b) if endswith(b, ".env")

_example(b) if {
	some w in split(lower(b), ".")
	w in _cfg.env_example_words
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

_exec_key(k) if k in _cfg.git_exec_config_keys

_exec_key(k) if {
	some prefix in _cfg.git_exec_config_prefixes
	startswith(k, prefix)
}

deny contains {"id": "git-internals", "reason": reason} if {
	some c in _cmds
	_git(c, "config")
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

deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in _cmds
	_stops(c)
	some tok in _opts(c)
	some name in _cfg.guard_process_names
	contains(lower(tok), name)
	reason := sprintf("%q is blocked: it would stop hookd, the guard of this session", [concat(" ", c.argv)])
}
