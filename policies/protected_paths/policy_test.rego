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
	object.remove(routing, ["commands"]) == {"events": ["BeforeTool"], "kinds": ["write", "edit", "shell"], "shell": ["redirect-out"]}
	every name in ["tee", "cp", "mv", "rm", "sed", "dd", "find", "kill", "systemctl", "hookd", "git config"] {
		name in routing.commands
	}
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

test_shell_redirect_env if {
	inp := _t_shell("echo KEY=1 > .env", [_t_redirect(_t_cmd(["echo", "KEY=1"]), ">", ".env")])
	_t_deny(inp) == {"env-file"}
}

test_shell_append_authorized_keys if {
	inp := _t_shell("echo ssh-ed25519 AAAA >> ~/.ssh/authorized_keys", [_t_redirect(_t_cmd(["echo", "ssh-ed25519", "AAAA"]), ">>", "/home/alice/.ssh/authorized_keys")])
	_t_deny(inp) == {"ssh-dir"}
}

test_shell_find_delete_hook_settings if {
	_t_allowed(_t_simple(["find", ".", "-name", "*.pyc", "-delete"]))
	_t_allowed(_t_simple(["find", ".claude", "-name", "*.json"]))
}

test_shell_cp_git_hook if {
	_t_deny(_t_simple(["cp", "scripts/pre-commit", ".git/hooks/pre-commit"])) == {"git-internals"}
}

test_shell_cp_from_protected_source_is_not_a_write if {
	# copying .git/config somewhere only reads it
	_t_allowed(_t_simple(["cp", ".git/config", "/tmp/gitconfig.bak"]))
}

test_shell_cp_target_dir if {
	_t_deny(_t_simple(["cp", "-t", "/home/alice/.ssh", "id_new"])) == {"ssh-dir"}
}

test_shell_ln_hook if {
	_t_deny(_t_simple(["ln", "-sf", "/tmp/evil", ".git/hooks/post-checkout"])) == {"git-internals"}
}

test_shell_mv_env_away if {
	_t_deny(_t_simple(["mv", ".env", "env.bak"])) == {"env-file"}
}

test_shell_rm_git_dir if {
	_t_deny(_t_simple(["rm", "-rf", ".git"])) == {"git-internals"}
}

test_shell_sed_in_place_suffix if {
	_t_deny(_t_simple(["sed", "-i.bak", "s/a/b/", ".env.local"])) == {"env-file"}
}

test_shell_sed_print_allowed if {
	_t_allowed(_t_simple(["sed", "-n", "1,5p", ".git/config"]))
}

test_shell_perl_pi if {
	_t_deny(_t_simple(["perl", "-pi", "-e", "s/x/y/", ".git/config"])) == {"git-internals"}
}

test_shell_chmod_hook if {
	_t_deny(_t_simple(["chmod", "+x", ".git/hooks/pre-push"])) == {"git-internals"}
}

test_shell_dd_of_env if {
	_t_deny(_t_simple(["dd", "if=/dev/zero", "of=.env", "count=1"])) == {"env-file"}
}

test_shell_sudo_tee_root_ssh if {
	inp := _t_shell("sudo tee /root/.ssh/authorized_keys", [object.union(_t_cmd(["tee", "/root/.ssh/authorized_keys"]), {"sudo": true, "wrappers": ["sudo"]})])
	_t_deny(inp) == {"ssh-dir"}
}

test_shell_nested_bash_c_redirect if {
	inp := _t_shell("bash -c 'echo x > .git/config'", [
		_t_cmd(["bash", "-c", "echo x > .git/config"]),
		_t_redirect(_t_at(["echo", "x"], 1, 0, 1), ">", ".git/config"),
	])
	_t_deny(inp) == {"git-internals"}
}

test_shell_redirect_to_gitignore_allowed if {
	inp := _t_shell("echo node_modules >> .gitignore", [_t_redirect(_t_cmd(["echo", "node_modules"]), ">>", ".gitignore")])
	_t_allowed(inp)
}

test_shell_cp_env_example_to_itself_dir_allowed if {
	_t_allowed(_t_simple(["cp", ".env.example", "config/.env.example"]))
}

test_shell_cp_env_example_to_env_denied if {
	_t_deny(_t_simple(["cp", ".env.example", ".env"])) == {"env-file"}
}

test_shell_null_redirect_paths_ignored if {
	cmd := object.union(_t_cmd(["make"]), {"redirects": [
		{"op": ">&", "target": "1", "path": null, "in_project": null},
		{"op": "<<", "target": "EOF", "path": null, "in_project": null},
	]})
	_t_allowed(_t_shell("make 2>&1 <<EOF", [cmd]))
}

test_shell_heredoc_into_env if {
	cmd := object.union(_t_cmd(["cat"]), {"redirects": [
		{"op": "<<", "target": "EOF", "path": null, "in_project": null},
		{"op": ">", "target": ".env", "path": "/home/alice/proj/.env", "in_project": true},
	]})
	_t_deny(_t_shell("cat <<EOF > .env\nA=1\nEOF", [cmd])) == {"env-file"}
}

test_shell_input_redirect_is_not_a_write if {
	inp := _t_shell("wc -l < .git/config", [_t_redirect(_t_cmd(["wc", "-l"]), "<", ".git/config")])
	_t_allowed(inp)
}

test_shell_reading_commands_allowed if {
	_t_allowed(_t_simple(["cat", ".git/config"]))
	_t_allowed(_t_simple(["ls", "/home/alice/.ssh"]))
	_t_allowed(_t_simple(["git", "add", ".env.example"]))
}

test_shell_git_commit_allowed if {
	_t_allowed(_t_simple(["git", "commit", "-m", "update .env.example and .git docs"]))
}

# ---------------------------------------------------------------------------------------------
# git config, stopping hookd
# ---------------------------------------------------------------------------------------------

test_git_config_hooks_path if {
	_t_deny(_t_simple(["git", "config", "core.hooksPath", "/tmp/hooks"])) == {"git-internals"}
}

test_git_config_new_syntax_fsmonitor if {
	_t_deny(_t_simple(["git", "config", "set", "core.fsmonitor", "./x.sh"])) == {"git-internals"}
}

test_git_config_global_filter if {
	_t_deny(_t_simple(["git", "config", "--global", "filter.lfs.smudge", "sh -c evil"])) == {"git-internals"}
}

test_git_config_read_allowed if {
	_t_allowed(_t_simple(["git", "config", "--get", "core.hooksPath"]))
}

test_git_config_user_allowed if {
	_t_allowed(_t_simple(["git", "config", "user.email", "agent@example.com"]))
	_t_allowed(_t_simple(["git", "config", "core.pager", "cat"]))
}

test_pkill_hookd if {
	_t_deny(_t_simple(["pkill", "-f", "hookd"])) == {"hookd-tamper"}
}

test_kill_pgrep_hookd if {
	inp := _t_shell("kill $(pgrep hookd)", [_t_cmd(["kill", "$(pgrep hookd)"]), _t_at(["pgrep", "hookd"], 1, 0, 1)])
	_t_deny(inp) == {"hookd-tamper"}
}

test_systemctl_stop_hookd if {
	_t_deny(_t_simple(["systemctl", "--user", "stop", "hookd.service"])) == {"hookd-tamper"}
}

test_systemctl_status_hookd_allowed if {
	_t_allowed(_t_simple(["systemctl", "--user", "status", "hookd.service"]))
}

test_kill_other_process_allowed if {
	_t_allowed(_t_simple(["pkill", "-f", "webpack-dev-server"]))
}

# ---------------------------------------------------------------------------------------------
# data.json consistency: the shortcuts in _writes and _protected
# ---------------------------------------------------------------------------------------------

test_watched_programs if {
	every key in ["writers_all_args", "in_place_editors", "writers_last_arg"] {
		every name in data.protected_paths[key] {
			name in data.protected_paths.watched_programs
		}
	}
	every name in ["dd", "kill", "pkill", "killall", "systemctl", "service", "launchctl", "hookd", "find"] {
		name in data.protected_paths.watched_programs
	}
}

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
