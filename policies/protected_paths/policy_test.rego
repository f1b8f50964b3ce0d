# Tests for hookd.protected_paths, with inputs in the shape of docs/policies.md.
package hookd.protected_paths

# ---------------------------------------------------------------------------------------------
# Test-input builders (package-local: regorus cannot mock across packages)
# ---------------------------------------------------------------------------------------------

_t_home := "/home/alice"

_t_project := "/home/alice/proj"

_t_in_project(p) if p == _t_project

_t_in_project(p) if startswith(p, concat("", [_t_project, "/"]))

_t_resolve(tok) := tok if startswith(tok, "/")

_t_resolve(".") := _t_project

_t_resolve(tok) := concat("/", [_t_project, trim_prefix(tok, "./")]) if {
	not startswith(tok, "/")
	tok != "."
}

_t_arg(tok) := {"raw": tok, "path": p, "in_project": true} if {
	p := _t_resolve(tok)
	_t_in_project(p)
} else := {"raw": tok, "path": _t_resolve(tok), "in_project": false}

_t_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

_t_cmd(argv) := _t_at(argv, 0, 0, 0)

_t_at(argv, pipeline, position, depth) := {
	"argv": argv,
	"name": _t_basename(argv[0]),
	"env": {},
	"sudo": false,
	"wrappers": [],
	"pipeline": pipeline,
	"position": position,
	"depth": depth,
	"redirects": [],
	"args": [_t_arg(tok) | some i, tok in argv; i > 0; not startswith(tok, "-")],
}

_t_redirect(cmd, op, target) := object.union(cmd, {"redirects": [{
	"op": op,
	"target": target,
	"path": _t_arg(target).path,
	"in_project": _t_arg(target).in_project,
}]})

_t_base := {
	"client": "gemini",
	"event": "BeforeTool",
	"session": {"id": "s1", "transcript_path": ""},
	"cwd": _t_project,
	"project_dir": _t_project,
	"caller": {"uid": 1000, "pid": 4242},
	"home": _t_home,
}

_t_shell(source, cmds) := object.union(_t_base, {
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": source}},
	"shell": {"source": source, "parse_error": false, "error": null, "commands": cmds},
	"raw": {"tool_name": "run_shell_command", "tool_input": {"command": source}},
})

_t_simple(argv) := _t_shell(concat(" ", argv), [_t_cmd(argv)])

# a file tool call touching one path (raw as the model wrote it, path resolved)
_t_file(kind, tool, arg, raw, path) := object.union(_t_base, {
	"tool": {"name": tool, "kind": kind, "input": {arg: raw}},
	"paths": [{"arg": arg, "raw": raw, "path": path, "in_project": _t_arg(path).in_project, "access": _t_access(kind)}],
	"raw": {"tool_name": tool, "tool_input": {arg: raw}},
})

_t_access("read") := "read"

_t_access(kind) := "write" if kind != "read"

_t_write(path) := _t_file("write", "write_file", "file_path", path, path)

_t_edit(path) := _t_file("edit", "replace", "file_path", path, path)

_t_deny(inp) := {v.id | some v in d} if d := deny with input as inp

_t_allowed(inp) if count(_t_deny(inp)) == 0

# ---------------------------------------------------------------------------------------------
# routing
# ---------------------------------------------------------------------------------------------

test_routing if {
	routing == {"events": ["BeforeTool"], "kinds": ["write", "edit", "shell", "mcp", "other"], "commands": ["hookd"], "shell": ["effect-write", "effect-signal"]}
}

test_read_tool_is_not_a_write if {
	_t_allowed(_t_file("read", "read_file", "file_path", ".env", "/home/alice/proj/.env"))
}

test_after_tool_ignored if {
	_t_allowed(object.union(_t_write("/home/alice/proj/.env"), {"event": "AfterTool"}))
}

# ---------------------------------------------------------------------------------------------
# file tools
# ---------------------------------------------------------------------------------------------

test_write_env if {
	_t_deny(_t_write("/home/alice/proj/.env")) == {"env-file"}
}

test_edit_env_local if {
	_t_deny(_t_edit("/home/alice/proj/.env.local")) == {"env-file"}
}

test_write_env_production_subdir if {
	_t_deny(_t_write("/home/alice/proj/config/.env.production")) == {"env-file"}
}

test_write_named_env if {
	_t_deny(_t_write("/home/alice/proj/deploy/prod.env")) == {"env-file"}
}

test_write_env_example_allowed if {
	_t_allowed(_t_write("/home/alice/proj/.env.example"))
}

test_write_env_sample_and_template_allowed if {
	_t_allowed(_t_write("/home/alice/proj/.env.sample"))
	_t_allowed(_t_write("/home/alice/proj/.env.template"))
	_t_allowed(_t_edit("/home/alice/proj/.env.local.example"))
}

test_write_envrc_and_environment_allowed if {
	_t_allowed(_t_write("/home/alice/proj/environment.py"))
	_t_allowed(_t_write("/home/alice/proj/.envoy.yaml"))
}

test_write_relative_env_outside_project if {
	_t_deny(_t_file("write", "write_file", "file_path", "../.env", "/home/alice/.env")) == {"env-file"}
}

test_write_ssh_authorized_keys if {
	_t_deny(_t_write("/home/alice/.ssh/authorized_keys")) == {"ssh-dir"}
}

test_write_ssh_of_root if {
	_t_deny(_t_write("/root/.ssh/authorized_keys")) == {"ssh-dir"}
}

test_write_sshrc_is_not_ssh_dir if {
	_t_allowed(_t_write("/home/alice/proj/docs/.sshrc.md"))
}

test_write_git_hook if {
	_t_deny(_t_write("/home/alice/proj/.git/hooks/pre-commit")) == {"git-internals"}
}

test_edit_git_config if {
	_t_deny(_t_edit("/home/alice/proj/.git/config")) == {"git-internals"}
}

test_write_git_refs_in_subrepo if {
	_t_deny(_t_write("/home/alice/proj/vendor/lib/.git/refs/heads/main")) == {"git-internals"}
}

# the repository's own ignore patterns only say which untracked files git skips: plain (blind-tools-13); its
# neighbours stay protected
test_edit_git_info_exclude_allowed if {
	_t_allowed(_t_edit("/home/alice/proj/.git/info/exclude"))
	_t_deny(_t_write("/home/alice/proj/.git/info/attributes")) == {"git-internals"}
	_t_deny(_t_write("/home/alice/proj/.git/info/exclude/../../hooks/x")) == {"git-internals"}
}

test_write_gitignore_allowed if {
	_t_allowed(_t_write("/home/alice/proj/.gitignore"))
	_t_allowed(_t_edit("/home/alice/proj/.gitattributes"))
	_t_allowed(_t_write("/home/alice/proj/.github/workflows/ci.yml"))
}

test_write_aws_credentials if {
	_t_deny(_t_write("/home/alice/.aws/credentials")) == {"cloud-credentials"}
}

test_write_gcloud if {
	_t_deny(_t_write("/home/alice/.config/gcloud/application_default_credentials.json")) == {"cloud-credentials"}
}

test_write_netrc if {
	_t_deny(_t_write("/home/alice/.netrc")) == {"cloud-credentials"}
}

test_write_gnupg if {
	_t_deny(_t_write("/home/alice/.gnupg/gpg.conf")) == {"cloud-credentials"}
}

test_write_tmp_dir_named_like_hookd_allowed if {
	# only /tmp/hookd-<uid> is hookd's; `hookd test` itself works in /tmp/hookd-cases-*
	_t_allowed(_t_write("/tmp/hookd-cases-x1y2/project/src/app.py"))
	_t_allowed(_t_write("/tmp/hookd-1000x/file"))
}

test_write_hookd_source_in_project_allowed if {
	# a project that happens to be hookd itself may edit its own sources
	_t_allowed(_t_write("/home/alice/proj/daemon/hookd/config.py"))
}

test_write_other_agent_files_allowed if {
	_t_allowed(_t_write("/home/alice/proj/.gemini/GEMINI.md"))
	_t_allowed(_t_write("/home/alice/proj/.claude/commands/review.md"))
	_t_allowed(_t_write("/home/alice/proj/CLAUDE.md"))
}

test_notebook_edit_claude_shape if {
	inp := object.union(_t_base, {
		"client": "claude",
		"tool": {"name": "Write", "kind": "write", "input": {"file_path": "/home/alice/proj/.env"}},
		"paths": [{"arg": "file_path", "raw": "/home/alice/proj/.env", "path": "/home/alice/proj/.env", "in_project": true, "access": "write"}],
		"raw": {},
	})
	_t_deny(inp) == {"env-file"}
}

test_multi_path_edit_one_protected if {
	inp := object.union(_t_write("/home/alice/proj/src/a.py"), {"paths": [
		{"arg": "file_path", "raw": "src/a.py", "path": "/home/alice/proj/src/a.py", "in_project": true, "access": "write"},
		{"arg": "file_path", "raw": ".git/config", "path": "/home/alice/proj/.git/config", "in_project": true, "access": "write"},
	]})
	_t_deny(inp) == {"git-internals"}
}

test_write_source_file_allowed if {
	_t_allowed(_t_write("/home/alice/proj/src/main.py"))
}

test_reason_names_path if {
	some v in deny with input as _t_write("/home/alice/proj/.env")
	v.id == "env-file"
	contains(v.reason, "/home/alice/proj/.env")
}

# ---------------------------------------------------------------------------------------------
# shell
# ---------------------------------------------------------------------------------------------

# A shell call as the effect model gives it (input.effects): the model itself is tested in
# tests/unit/enrich/test_effects.py, and whole lines through it in cases/ and the corpus.
_t_effects(source, effects) := object.union(_t_shell(source, []), {"effects": effects})

_t_e(op, program, path) := {"op": op, "program": program, "path": path, "known": true, "via": "shell", "raw": path}

test_shell_write_env if {
	_t_deny(_t_effects("echo KEY=1 > .env", [_t_e("write", "echo", "/home/alice/proj/.env")])) == {"env-file"}
}

test_shell_append_authorized_keys if {
	inp := _t_effects("echo k >> ~/.ssh/authorized_keys", [_t_e("write", "echo", "/home/alice/.ssh/authorized_keys")])
	_t_deny(inp) == {"ssh-dir"}
}

test_shell_delete_mode_move_link_are_changes if {
	_t_deny(_t_effects("rm -rf .git", [_t_e("delete", "rm", "/home/alice/proj/.git")])) == {"git-internals"}
	_t_deny(_t_effects("chmod +x .git/hooks/x", [_t_e("chmod", "chmod", "/home/alice/proj/.git/hooks/x")])) == {"git-internals"}
	_t_deny(_t_effects("mv .env e", [_t_e("move", "mv", "/home/alice/proj/.env")])) == {"env-file"}
	_t_deny(_t_effects("ln -s .env x", [_t_e("link", "ln", "/home/alice/proj/.env")])) == {"env-file"}
}

test_shell_reads_and_copy_sources_are_not_changes if {
	_t_allowed(_t_effects("cp .git/config /tmp/b", [
		_t_e("copy", "cp", "/home/alice/proj/.git/config"),
		_t_e("write", "cp", "/tmp/b"),
	]))
	_t_allowed(_t_effects("cat .env", [_t_e("read", "cat", "/home/alice/proj/.env")]))
	_t_allowed(_t_effects("ls ~/.ssh", [_t_e("list", "ls", "/home/alice/.ssh")]))
}

_t_copy(src, dst) := [
	object.union(_t_e("copy", "cp", src), {"to": dst}),
	object.union(_t_e("write", "cp", dst), {"target_of": "copy"}),
]

test_shell_env_made_from_its_template_allowed if {
	_t_allowed(_t_effects("cp .env.example .env", _t_copy("/home/alice/proj/.env.example", "/home/alice/proj/.env")))
	_t_allowed(_t_effects("cp config/.env.sample .env.local", _t_copy("/home/alice/proj/config/.env.sample", "/home/alice/proj/.env.local")))
}

test_shell_env_written_from_anything_else_denied if {
	_t_deny(_t_effects("cp /tmp/x .env", _t_copy("/tmp/x", "/home/alice/proj/.env"))) == {"env-file"}
	_t_deny(_t_effects("cp .env.prod .env", _t_copy("/home/alice/proj/.env.prod", "/home/alice/proj/.env"))) == {"env-file"}
	moved := [object.union(_t_e("move", "mv", "/home/alice/proj/.env.example"), {"to": "/home/alice/proj/.env"}), object.union(_t_e("write", "mv", "/home/alice/proj/.env"), {"target_of": "move"})]
	_t_deny(_t_effects("mv .env.example .env", moved)) == {"env-file"}
	written := array.concat([_t_e("write", "echo", "/home/alice/proj/.env.example")], _t_copy("/home/alice/proj/.env.example", "/home/alice/proj/.env"))
	_t_deny(_t_effects("echo X=1 > .env.example && cp .env.example .env", written)) == {"env-file"}
}

test_shell_chmod_made_private_allowed if {
	key := object.union(_t_e("chmod", "chmod", "/home/alice/.ssh/id_ed25519"), {"tightens": true})
	_t_allowed(_t_effects("chmod 600 ~/.ssh/id_ed25519", [key]))
	_t_deny(_t_effects("chmod 644 ~/.ssh/id_ed25519", [_t_e("chmod", "chmod", "/home/alice/.ssh/id_ed25519")])) == {"ssh-dir"}
	hook := object.union(_t_e("chmod", "chmod", "/home/alice/proj/.git/hooks/pre-commit"), {"tightens": true})
	_t_deny(_t_effects("chmod 600 .git/hooks/pre-commit", [hook])) == {"git-internals"}
}

# gaps38: host keys recorded in known_hosts (the effect model's `text_of`); anywhere else below ~/.ssh still protected
test_shell_host_keys_recorded_in_known_hosts_allowed if {
	known := object.union(_t_e("write", "ssh-keyscan", "/home/alice/.ssh/known_hosts"), {"text_of": "host_keys"})
	_t_allowed(_t_effects("ssh-keyscan github.com >> ~/.ssh/known_hosts", [known]))
	_t_deny(_t_effects("echo x >> ~/.ssh/known_hosts", [_t_e("write", "echo", "/home/alice/.ssh/known_hosts")])) == {"ssh-dir"}
	granted := object.union(_t_e("write", "ssh-keyscan", "/home/alice/.ssh/authorized_keys"), {"text_of": "host_keys"})
	_t_deny(_t_effects("ssh-keyscan x >> ~/.ssh/authorized_keys", [granted])) == {"ssh-dir"}
}

test_shell_write_gitignore_allowed if {
	_t_allowed(_t_effects("echo x >> .gitignore", [_t_e("write", "echo", "/home/alice/proj/.gitignore")]))
}

test_shell_other_events_ignored if {
	inp := object.union(_t_effects("x", [_t_e("write", "tee", "/home/alice/proj/.env")]), {"event": "AfterTool"})
	_t_allowed(inp)
}

test_shell_write_built_at_run_time_is_asked if {
	e := object.union(_t_e("write", "cp", ""), {"known": false, "raw": "$D/authorized_keys", "fixed": "elsewhere"})
	some v in ask with input as _t_effects("cp k \"$D/authorized_keys\"", [e])
	v.id == "unknown-write"
}

# blind-benign-7: `ln -sf $(poetry run which poetry) ~/.local/bin/poetry@local` links to an installed program
# (the effect's `installed`, shell/outputs.py); a write, move or delete of what the lookup finds still replaces it.
test_shell_link_to_what_a_lookup_finds_is_not_asked if {
	e := object.union(_t_e("link", "ln", ""), {"known": false, "raw": "$(which poetry)", "fixed": "elsewhere", "installed": "poetry"})
	count(ask) == 0 with input as _t_effects("ln -sf $(which poetry) ~/.local/bin/poetry@local", [e])
}

test_shell_write_of_what_a_lookup_finds_is_asked if {
	e := object.union(_t_e("write", "cp", ""), {"known": false, "raw": "$(which git)", "fixed": "elsewhere", "installed": "git"})
	some v in ask with input as _t_effects("cp evil $(which git)", [e])
	v.id == "unknown-write"
	m := object.union(e, {"op": "move"})
	some w in ask with input as _t_effects("mv $(which git) /tmp/g", [m])
	w.id == "unknown-write"
}

test_shell_write_built_at_run_time_in_the_project_is_not_asked if {
	e := object.union(_t_e("write", "cc", ""), {"known": false, "raw": "build/$X.o", "fixed": "project"})
	count(ask) == 0 with input as _t_effects("cc -o build/$X.o", [e])
	s := object.union(e, {"raw": "/tmp/$X", "fixed": "scratch"})
	count(ask) == 0 with input as _t_effects("echo > /tmp/$X", [s])
}

_t_git_config(key, value, path) := object.union(_t_e("write", "git", path), {"key": key, "value": value, "executes": true})

test_git_config_executing_key if {
	inp := _t_effects("git config core.hooksPath /tmp/h", [_t_git_config("core.hooksPath", "/tmp/h", "/home/alice/proj/.git/config")])
	_t_deny(inp) == {"git-internals"}
	glob := _t_effects("git config --global filter.lfs.smudge x", [_t_git_config("filter.lfs.smudge", "sh -c evil", "/home/alice/.gitconfig")])
	_t_deny(glob) == {"git-internals"}
}

test_git_config_plain_keys_allowed if {
	plain := object.union(_t_e("write", "git", "/home/alice/proj/.git/config"), {"key": "user.email", "value": "a@b", "executes": false})
	_t_allowed(_t_effects("git config user.email a@b", [plain]))
	pager := object.union(_t_git_config("core.pager", "cat", "/home/alice/proj/.git/config"), {"executes": false})
	_t_allowed(_t_effects("git config core.pager cat", [pager]))
}

_t_signal(program, target, match) := {"op": "signal", "program": program, "target": target, "match": match, "known": true, "via": "shell"}

test_signals_to_hookd if {
	_t_deny(_t_effects("pkill -f hookd", [_t_signal("pkill", "hookd", "regex")])) == {"hookd-tamper"}
	_t_deny(_t_effects("pkill 'hoo[k]d'", [_t_signal("pkill", "hoo[k]d", "regex")])) == {"hookd-tamper"}
	_t_deny(_t_effects("pkill -f '^/usr/bin/python3.* -m hook[d]'", [_t_signal("pkill", "^/usr/bin/python3.* -m hook[d]", "regex")])) == {"hookd-tamper"}
	_t_deny(_t_effects("kill $(pgrep hookd)", [_t_signal("kill", "$(pgrep hookd)", "pid")])) == {"hookd-tamper"}
	_t_deny(_t_effects("systemctl stop hookd", [_t_signal("systemctl", "hookd.service", "unit")])) == {"hookd-tamper"}
	_t_deny(_t_effects("kill -9 -1", [_t_signal("kill", "-1", "all")])) == {"hookd-tamper"}
	_t_deny(_t_effects("killall5 -9", [_t_signal("killall5", "", "all")])) == {"hookd-tamper"}
	_t_deny(_t_effects("systemctl --user stop 'hook?.service'", [_t_signal("systemctl", "^hook.$", "regex")])) == {"hookd-tamper"}
	_t_deny(_t_effects("echo 1 > /sys/fs/cgroup/app.slice/hookd.service/cgroup.kill", [_t_signal("echo", "/sys/fs/cgroup/app.slice/hookd.service", "cgroup")])) == {"hookd-tamper"}
}

_t_package(program, name) := {"op": "delete", "program": program, "path": "", "known": true, "recursive": false, "via": "shell", "what": "package", "name": name}

_t_looked_up(program, lookup) := object.union(_t_signal(program, "${xargs_input}", "pid"), {"lookup": lookup})

# a PID a lookup prints when the shell runs: the lookup's operands name the process signalled (or limited)
test_signals_to_a_pid_looked_up_by_the_guards_name if {
	_t_deny(_t_effects("pgrep -f hookd | xargs kill -9", [_t_looked_up("kill", ["hookd"])])) == {"hookd-tamper"}
	_t_deny(_t_effects("ps aux | grep '[h]ookd' | …", [_t_looked_up("kill", ["aux", "[h]ookd", "{print $2}"])])) == {"hookd-tamper"}
	_t_deny(_t_effects("prlimit --pid $(pidof HookD)", [_t_looked_up("prlimit", ["HookD"])])) == {"hookd-tamper"}
	_t_allowed(_t_effects("pgrep -f 'node server' | xargs kill", [_t_looked_up("kill", ["node server"])]))
	_t_allowed(_t_effects("kill $(cat .pid)", [_t_looked_up("kill", [".pid"])]))
}

test_hookd_package_removed_is_denied_another_package_is_not if {
	_t_deny(_t_effects("pip uninstall -y hookd", [_t_package("pip", "hookd")])) == {"hookd-tamper"}
	_t_deny(_t_effects("pipx uninstall HookD", [_t_package("pipx", "HookD")])) == {"hookd-tamper"}
	_t_allowed(_t_effects("pip uninstall -y requests", [_t_package("pip", "requests")]))
}

test_signals_to_other_processes_allowed if {
	_t_allowed(_t_effects("pkill -f webpack", [_t_signal("pkill", "webpack-dev-server", "regex")]))
	_t_allowed(_t_effects("pkill 'a[b'", [_t_signal("pkill", "a[b", "regex")])) # not a regex: no match, no error
	_t_allowed(_t_effects("killall hoo.d", [_t_signal("killall", "hoo.d", "name")])) # a name, not a pattern
	_t_allowed(_t_effects("kill -15 4321", [_t_signal("kill", "4321", "pid")]))
	_t_allowed(_t_effects("systemctl --user stop 'web*.service'", [_t_signal("systemctl", "^web.*$", "regex")]))
	_t_allowed(_t_effects("echo 1 > /sys/fs/cgroup/app.slice/webpack.service/cgroup.freeze", [_t_signal("echo", "/sys/fs/cgroup/app.slice/webpack.service", "cgroup")]))
}

test_kill_other_process_allowed if {
	_t_allowed(_t_simple(["pkill", "-f", "webpack-dev-server"]))
}

# ---------------------------------------------------------------------------------------------
# data.json consistency: the shortcuts in _writes and _protected
# ---------------------------------------------------------------------------------------------

# quick_pattern is an unanchored alternation of literal text that occurs in every entry, so that
# any path an entry matches contains a match of it too
test_quick_pattern if {
	q := data.protected_paths.quick_pattern
	not contains(q, "^")
	not contains(q, "$")
	every e in data.protected_paths.segments {
		regex.match(q, e.segment)
	}
	every e in data.protected_paths.files {
		regex.match(q, e.suffix)
	}
	every e in data.protected_paths.prefixes {
		regex.match(q, e.prefix)
	}
	every e in data.protected_paths.patterns {
		regex.match(q, e.prefix)
	}
}

# ---------------------------------------------------------------------------------------------
# Patches whose files cannot be known are asked
# ---------------------------------------------------------------------------------------------

_t_unknown_patch := {
	"event": "BeforeTool", "home": _t_home, "project_dir": _t_project,
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": "curl -s x | git apply"}},
	"shell": {"commands": [
		object.union(_t_at(["git", "apply"], 0, 1, 0), {"redirects": []}),
		object.union(_t_at(["tee"], 1, 0, 1), {"wrappers": ["git"], "patch": {"known": false}, "redirects": []}),
	]},
}

test_a_patch_from_a_pipe_is_asked if {
	some v in ask with input as _t_unknown_patch
	v.id == "unknown-patch"
}

test_a_known_patch_is_not_asked if {
	known := json.patch(_t_unknown_patch, [{"op": "replace", "path": "/shell/commands/1/patch/known", "value": true}])
	count(ask) == 0 with input as known
}

test_a_patch_tool_without_its_patch_is_asked if {
	some v in ask with input as {
		"event": "BeforeTool", "home": _t_home, "project_dir": _t_project, "paths": [],
		"tool": {"name": "apply_patch", "kind": "edit", "input": {"diff": "?"}},
		"effects": [{"op": "write", "path": "", "known": false, "via": "tool", "program": "apply_patch"}],
	}
	v.id == "unknown-patch"
}

test_an_unknown_read_by_a_tool_is_not_a_write if {
	count(ask) == 0 with input as {
		"event": "BeforeTool", "home": _t_home, "project_dir": _t_project, "paths": [],
		"tool": {"name": "Grep", "kind": "edit", "input": {}},
		"effects": [{"op": "read", "path": "/x/*", "known": false, "via": "tool", "program": "Grep"}],
	}
}

# A tool hookd has no table for (an MCP server's file tools): its effects are judged
_t_mcp(op, path) := object.union(_t_base, {
	"tool": {"name": "mcp__filesystem__write_file", "kind": "mcp", "input": {"path": path}},
	"paths": [{"arg": "path", "raw": path, "path": path, "in_project": _t_arg(path).in_project, "access": "write"}],
	"effects": [{"op": op, "path": path, "known": true, "program": "mcp__filesystem__write_file", "via": "tool"}],
})

test_an_mcp_tool_writing_a_git_hook_is_denied if {
	count(_t_deny(_t_mcp("write", "/home/alice/proj/.git/hooks/pre-commit"))) > 0
}

test_an_mcp_tool_writing_a_path_hookd_cannot_resolve_is_asked if {
	i := json.patch(_t_mcp("write", ""), [{"op": "replace", "path": "/effects/0/known", "value": false}])
	some v in ask with input as i
	v.id == "unknown-write"
	count(ask) == 0 with input as _t_mcp("write", "/home/alice/proj/src/a.py")
}

test_an_mcp_tool_writing_a_source_file_is_allowed if {
	_t_allowed(_t_mcp("write", "/home/alice/proj/src/a.py"))
}

test_a_file_tool_writing_an_executing_git_key_is_denied if {
	i := object.union(_t_write("/home/alice/.gitconfig"), {"effects": [{"op": "write", "path": "/home/alice/.gitconfig", "known": true, "program": "write_file", "via": "tool", "key": "core.fsmonitor", "value": "sh -c id", "executes": true}]})
	"git-internals" in _t_deny(i)
}

test_a_file_tool_writing_the_git_config_plainly_is_allowed if {
	i := object.union(_t_write("/home/alice/.gitconfig"), {"effects": [{"op": "write", "path": "/home/alice/.gitconfig", "known": true, "program": "write_file", "via": "tool"}]})
	_t_allowed(i)
}

# A git configuration a tool moves, copies or edits without hookd seeing its whole resulting text: `exec` of
# code not known (daemon/hookd/enrich/tool_effects.py), asked
_t_unjudged_config(kind) := object.union(_t_file(kind, "mcp__fs__move_file", "destination", "/home/alice/.gitconfig", "/home/alice/.gitconfig"), {"effects": [
	{"op": "write", "path": "/home/alice/.gitconfig", "known": true, "via": "tool", "program": "mcp__fs__move_file"},
	{"op": "exec", "path": "", "known": false, "via": "tool", "program": "git", "config": "/home/alice/.gitconfig"},
]})

test_a_git_configuration_whose_text_is_not_known_is_asked if {
	some kind in ["mcp", "other", "write"]
	{v.id | some v in ask with input as _t_unjudged_config(kind)} == {"unknown-code"}
	some v in ask with input as _t_unjudged_config("mcp")
	contains(v.reason, "/home/alice/.gitconfig")
}

_aliased_edit(alias) := {
	"event": "BeforeTool",
	"tool": {"kind": "edit", "name": "Edit"},
	"home": "/home/u",
	"project_dir": "/p",
	"paths": [{"arg": "file_path", "path": "/home/u/dotfiles/ssh/authorized_keys", "access": "write", "in_project": false}],
	"effects": [
		{"op": "write", "path": "/home/u/dotfiles/ssh/authorized_keys", "known": true, "via": "tool", "program": "Edit"},
		object.union({"op": "write", "path": "/home/u/.ssh/authorized_keys", "known": true, "via": "tool", "program": "Edit"}, alias),
	],
}

test_a_file_tool_writing_under_another_name_of_a_protected_file_is_denied if {
	d := deny with input as _aliased_edit({"alias": "/home/u/dotfiles/ssh/authorized_keys"})
	count(d) > 0
}

test_a_file_tools_own_effects_are_judged_through_its_paths_only if {
	count(deny) == 0 with input as _aliased_edit({})
}

_import_write(path) := {
	"event": "BeforeTool",
	"tool": {"kind": "write", "name": "Write"},
	"home": "/home/u",
	"project_dir": "/p",
	"paths": [{"arg": "file_path", "path": "/home/u/.claude/CLAUDE.md", "access": "write", "in_project": false}],
	"effects": [
		{"op": "write", "path": "/home/u/.claude/CLAUDE.md", "known": true, "via": "tool", "program": "Write"},
		{"op": "read", "path": path, "known": true, "via": "tool", "program": "Write", "deferred": true, "import": "@x"},
	],
}

test_an_instruction_file_importing_a_key_is_denied if {
	every p in ["/home/u/.ssh/id_ed25519", "/home/u/.aws/credentials", "/p/.env"] {
		count(deny) > 0 with input as _import_write(p)
	}
}

# a file the effect model found holding a credential (`holds`), whatever its name, is no file to import either
test_an_import_of_a_file_holding_a_credential_is_denied if {
	inp := _import_write("/home/u/.config/glab-cli/config.yml")
	held := object.union(inp, {"effects": [inp.effects[0], object.union(inp.effects[1], {"holds": "credential"})]})
	count(deny) > 0 with input as held
	count(deny) == 0 with input as inp
}

# what a command written into a configuration for later changes (`deferred`) is judged as the change made now
test_a_configured_commands_later_write_of_a_key_file_is_denied if {
	inp := _import_write("/home/u/.ssh/authorized_keys")
	later := object.union(inp, {"effects": [inp.effects[0], {"op": "write", "path": "/home/u/.ssh/authorized_keys", "known": true, "via": "tool", "program": "tee", "deferred": true, "startup": "/p/.mcp.json"}]})
	count(deny) > 0 with input as later
	plain := object.union(inp, {"effects": [inp.effects[0], {"op": "write", "path": "/home/u/.cache/srv/log", "known": true, "via": "tool", "program": "tee", "deferred": true, "startup": "/p/.mcp.json"}]})
	count(deny) == 0 with input as plain
}

test_an_instruction_file_importing_docs_or_git_files_is_allowed if {
	every p in ["/p/docs/architecture.md", "/home/u/.claude/my-project-instructions.md", "/p/.git/HEAD"] {
		count(deny) == 0 with input as _import_write(p)
	}
}

# A new .env whose text fills in its template's names (the effect model's `template`, enrich/env_template.py):
# as `cp .env.example .env`, through a file tool, a patch, an MCP server or the shell; without it, still a write.
test_env_filled_in_from_its_template_allowed if {
	templated := {"op": "write", "path": "/home/alice/proj/.env", "via": "tool", "known": true, "template": "/home/alice/proj/.env.example"}
	_t_allowed(object.union(_t_write("/home/alice/proj/.env"), {"effects": [templated]}))
	shell := object.union(_t_e("write", "cat", "/home/alice/proj/.env"), {"template": "/home/alice/proj/.env.example"})
	_t_allowed(_t_effects("cat <<'EOF' > .env", [shell]))
	mcp := object.union(_t_write("/home/alice/proj/.env"), {"tool": {"name": "mcp__filesystem__write_file", "kind": "mcp", "input": {}}, "effects": [templated]})
	_t_allowed(mcp)
	_t_deny(object.union(mcp, {"effects": [object.remove(templated, ["template"])]})) == {"env-file"}
	plain := {"op": "write", "path": "/home/alice/proj/.env", "via": "tool", "known": true}
	_t_deny(object.union(_t_write("/home/alice/proj/.env"), {"effects": [plain]})) == {"env-file"}
	other := object.union(templated, {"path": "/home/alice/proj/other.env"}) # the template is another file's
	_t_deny(object.union(_t_write("/home/alice/proj/.env"), {"effects": [other]})) == {"env-file"}
}

# A write of an env file whose every line added or taken is a public variable (the effect model's `public`,
# enrich/env_template.py): a Vite app's `.env.local`, by a file tool or the shell; `public: false`, still a write.
test_env_changing_only_public_variables_allowed if {
	public := {"op": "write", "path": "/home/alice/web/.env.local", "via": "tool", "known": true, "public": true}
	_t_allowed(object.union(_t_edit("/home/alice/web/.env.local"), {"effects": [public]}))
	shell := object.union(_t_e("write", "printf", "/home/alice/web/.env.local"), {"public": true})
	_t_allowed(_t_effects("printf 'VITE_API_URL=http://localhost:8000\\n' > .env.local", [shell]))
	_t_deny(object.union(_t_edit("/home/alice/web/.env.local"), {"effects": [object.union(public, {"public": false})]})) == {"env-file"}
	other := object.union(public, {"path": "/home/alice/web/.env"}) # another file's change is public
	_t_deny(object.union(_t_edit("/home/alice/web/.env.local"), {"effects": [other]})) == {"env-file"}
}

# the daemon runs as its interpreter (`python3 -I -m hookd serve`): a signal to every process of that name
test_a_signal_by_the_daemons_interpreter_name if {
	_t_deny(_t_effects("killall -s KILL python3", [_t_signal("killall", "python3", "name")])) == {"hookd-tamper"}
	_t_deny(_t_effects("killall python3.11", [_t_signal("killall", "python3.11", "name")])) == {"hookd-tamper"}
	_t_allowed(_t_effects("killall node", [_t_signal("killall", "node", "name")]))
}

# a PID looked up through the guard's socket
test_a_pid_looked_up_through_the_guards_socket if {
	sig := object.union(_t_signal("kill", "$(ss -xlp | grep hook.sock | cut -d= -f2)", "pid"), {"lookup": ["hook.sock"]})
	_t_deny(_t_effects("kill -STOP $(ss -xlp | grep hook.sock | cut -d= -f2)", [sig])) == {"hookd-tamper"}
	other := object.union(_t_signal("kill", "$(lsof -t /run/webhook.sock)", "pid"), {"lookup": ["/run/webhook.sock"]})
	_t_allowed(_t_effects("kill $(lsof -t /run/webhook.sock)", [other]))
}

# a unit that holds hookd.service: the slice user services run in, the user manager's own service
test_a_unit_that_holds_the_guards if {
	_t_deny(_t_effects("systemctl --user set-property app.slice CPUQuota=1%", [_t_signal("systemctl", "app.slice", "unit")])) == {"hookd-tamper"}
	_t_deny(_t_effects("systemctl stop user@1000.service", [_t_signal("systemctl", "user@1000.service", "unit")])) == {"hookd-tamper"}
	_t_allowed(_t_effects("systemctl --user restart app-dev.slice", [_t_signal("systemctl", "app-dev.slice", "unit")]))
	_t_allowed(_t_effects("systemctl --user stop devserver.service", [_t_signal("systemctl", "devserver.service", "unit")]))
}

# hookd's units written from a configuration the line names
test_hookd_service_install_from_another_config if {
	_t_deny(_t_simple(["hookd", "--config", "/tmp/h.toml", "service", "install"])) == {"hookd-tamper"}
	_t_deny(_t_simple(["hookd", "--config", "/tmp/h.toml", "install", "--client", "claude"])) == {"hookd-tamper"}
	_t_deny(_t_simple(["hookd", "--config=/tmp/h.toml", "install"])) == {"hookd-tamper"}
	_t_allowed(_t_simple(["hookd", "install", "--client", "claude"]))
	_t_allowed(_t_simple(["hookd", "--config", "/tmp/h.toml", "bundle", "build", "p", "-o", "dist/b.tar.gz"]))
	inp := _t_shell("HOOKD_CONFIG=/tmp/h.toml hookd service install", [object.union(_t_cmd(["hookd", "service", "install"]), {"env": {"HOOKD_CONFIG": "/tmp/h.toml"}})])
	_t_deny(inp) == {"hookd-tamper"}
	_t_allowed(_t_simple(["hookd", "service", "status", "--json"]))
	_t_allowed(_t_simple(["hookd", "--config", "/tmp/h.toml", "status"]))
}

# An SSH client configuration whose whole text only says how to connect (the effect model's `plain`,
# enrich/ssh_config.py): allowed; the same write without it, or of a key beside it, still denied.
test_ssh_config_of_plain_connection_settings_allowed if {
	plain := {"op": "write", "path": "/home/alice/.ssh/config", "via": "tool", "known": true, "plain": "ssh_config"}
	_t_allowed(object.union(_t_write("/home/alice/.ssh/config"), {"effects": [plain]}))
	_t_deny(object.union(_t_write("/home/alice/.ssh/config"), {"effects": [object.remove(plain, ["plain"])]})) == {"ssh-dir"}
	key := object.union(plain, {"path": "/home/alice/.ssh/id_ed25519"})
	_t_deny(object.union(_t_write("/home/alice/.ssh/id_ed25519"), {"effects": [key]})) == {"ssh-dir"}
}

# blind-shell-14: an archive extracted, or a tree copied, into the home itself writes names the line never shows
# (any startup file, key or agent setting); a tree written into the project, or below the home at a named place
# the lists do not hold, is no such write.
test_shell_tree_written_into_the_home_is_asked if {
	e := object.union(_t_e("write", "tar", "/home/alice"), {"recursive": true, "class": "home"})
	some v in ask with input as _t_effects("curl -s URL | tar -xz -C ~", [e])
	v.id == "tree-over-home"
}

test_shell_tree_written_into_the_project_or_one_file_of_the_home_is_not_asked if {
	p := object.union(_t_e("write", "tar", "/home/alice/proj/build"), {"recursive": true, "class": "project"})
	count(ask) == 0 with input as _t_effects("tar -xzf dist.tgz -C build", [p])
	f := object.union(_t_e("write", "cp", "/home/alice"), {"recursive": false, "class": "home"})
	not "tree-over-home" in {v.id | some v in ask} with input as _t_effects("cp notes.txt ~", [f])
	t := object.union(_t_e("write", "tar", "/home"), {"recursive": true, "class": "home"})
	not "tree-over-home" in {v.id | some v in ask} with input as _t_effects("tar -xf node.tar.xz -C /home", [t])
}

# An MCP server's unzip into the home itself (blind-tools-21); into the project, or one file of the home, it is not asked
test_an_mcp_tool_unpacking_into_the_home_is_asked if {
	home := object.union(_t_mcp("write", "/home/alice"), {"tool": {"name": "mcp__zip__extract_all", "kind": "mcp", "input": {}}})
	tree := object.union(home, {"effects": [object.union(home.effects[0], {"recursive": true})]})
	"tree-over-home" in {v.id | some v in ask} with input as tree
	not "tree-over-home" in {v.id | some v in ask} with input as home
	build := object.union(_t_mcp("write", "/home/alice/proj/build"), {"tool": {"name": "mcp__zip__extract_all", "kind": "mcp", "input": {}}})
	not "tree-over-home" in {v.id | some v in ask} with input as object.union(build, {"effects": [object.union(build.effects[0], {"recursive": true})]})
}

# An archive on disk whose members were read (`listed`): each member is a write of its own, judged by its place
test_shell_tree_whose_members_were_listed_is_judged_by_each_member if {
	w := object.union(_t_e("write", "tar", "/home/alice"), {"recursive": true, "class": "home", "listed": true})
	not "tree-over-home" in {v.id | some v in ask} with input as _t_effects("tar -xzf ~/Downloads/dots.tar.gz -C ~", [w])
	u := object.union(_t_e("write", "tar", "/home/alice"), {"recursive": true, "class": "home"})
	"tree-over-home" in {v.id | some v in ask} with input as _t_effects("tar -xf big.tar.zst -C ~", [u])
}

# a daemon started on policies of its own where the shims look for the guard (blind-tamper-13)
test_hookd_served_on_other_policies if {
	_t_deny(_t_simple(["hookd", "serve", "--policies", "/tmp/p"])) == {"hookd-tamper"}
	_t_deny(_t_simple(["hookd", "--config", "/tmp/h.toml", "serve"])) == {"hookd-tamper"}
	guard := object.union(_t_cmd(["hookd", "serve", "--policies=/tmp/p", "--runtime-dir", "$XDG_RUNTIME_DIR/hookd"]), {"args": [{"raw": "$XDG_RUNTIME_DIR/hookd", "class": "unresolved"}]})
	_t_deny(_t_shell("hookd serve --policies=/tmp/p --runtime-dir $XDG_RUNTIME_DIR/hookd", [guard])) == {"hookd-tamper"}
	own := object.union(_t_cmd(["hookd", "serve", "--policies", "policies", "--runtime-dir", ".rt"]), {"args": [{"raw": ".rt", "class": "project"}]})
	_t_allowed(_t_shell("hookd serve --policies policies --runtime-dir .rt", [own]))
	_t_allowed(_t_simple(["hookd", "serve"]))
	_t_allowed(_t_simple(["hookd", "status", "--policies", "/tmp/p"]))
}
