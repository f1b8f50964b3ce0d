# Tests for hookd.destructive_shell. The inputs follow docs/policies.md: commands as the shell
# parser emits them (argv after quote removal and ~ expansion, wrappers peeled, args resolved).
package hookd.destructive_shell

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

_t_arg(tok) := {"raw": tok, "path": p, "in_project": _t_in_project(p)} if {
	p := _t_resolve(tok)
	_t_in_project(p)
} else := {"raw": tok, "path": _t_resolve(tok), "in_project": false}

# an argument whose raw text and resolved path differ (`..`, `$VAR`)
_t_arg_at(raw, path) := {"raw": raw, "path": path, "in_project": _t_in_project(path)} if {
	_t_in_project(path)
} else := {"raw": raw, "path": path, "in_project": false}

# one simple command; args are the argv words that are not options
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

_t_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

_t_sudo(cmd) := object.union(cmd, {"sudo": true, "wrappers": ["sudo"]})

_t_with_args(cmd, args) := object.union(cmd, {"args": args})

_t_redirect(cmd, op, target) := object.union(cmd, {"redirects": [{
	"op": op,
	"target": target,
	"path": _t_arg(target).path,
	"in_project": _t_arg(target).in_project,
}]})

_t_shell(source, cmds) := {
	"client": "gemini",
	"event": "BeforeTool",
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": source}},
	"session": {"id": "s1", "transcript_path": ""},
	"cwd": _t_project,
	"project_dir": _t_project,
	"caller": {"uid": 1000, "pid": 4242},
	"home": _t_home,
	"shell": {"source": source, "parse_error": false, "error": null, "commands": cmds},
	"paths": [],
	"raw": {"tool_name": "run_shell_command", "tool_input": {"command": source}},
}

# a single simple command whose source is its argv joined by spaces
_t_simple(argv) := _t_shell(concat(" ", argv), [_t_cmd(argv)])

_t_deny(inp) := {v.id | some v in d} if d := deny with input as inp

_t_ask(inp) := {v.id | some v in a} if a := ask with input as inp

# every blocking verdict (deny and ask)
_t_blocking(inp) := _t_deny(inp) | _t_ask(inp)

_t_allowed(inp) if count(_t_blocking(inp)) == 0

# ---------------------------------------------------------------------------------------------
# routing
# ---------------------------------------------------------------------------------------------

test_routing_is_before_tool_shell if {
	object.remove(routing, ["commands", "shell", "text"]) == {"events": ["BeforeTool"], "kinds": ["shell"]}
	every name in ["git push", "git clean", "eval"] {
		name in routing.commands
	}
	routing.shell == ["dynamic-program", "inline", "redirect-out", "wrapped", "effect-write", "effect-unknown", "effect-device", "effect-privilege", "effect-config", "effect-signal"]
	routing.text == ["{"]
}

test_ignores_other_kinds if {
	inp := object.union(_t_simple(["rm", "-rf", "/home/alice"]), {"tool": {"name": "write_file", "kind": "write", "input": {}}})
	_t_allowed(inp)
}

test_ignores_after_tool if {
	inp := object.union(_t_simple(["rm", "-rf", "/home/alice"]), {"event": "AfterTool"})
	_t_allowed(inp)
}

# ---------------------------------------------------------------------------------------------
# parser failures
# ---------------------------------------------------------------------------------------------

test_parse_error_asks if {
	inp := object.union(_t_simple(["echo", "'unterminated"]), {"shell": {"source": "echo 'unterminated", "parse_error": true, "error": "unterminated quote", "commands": [_t_cmd(["echo", "'unterminated"])]}})
	_t_ask(inp) == {"unparsable-shell"}
}

test_parse_error_still_runs_other_rules if {
	home := {"op": "delete", "path": "/home/alice", "known": true, "recursive": true, "to": "", "program": "rm", "via": "shell", "class": "home", "raw": "/home/alice"}
	inp := object.union(_t_simple(["rm", "-rf", "/home/alice"]), {"effects": [home], "shell": {"source": "rm -rf ~ 'x", "parse_error": true, "error": "unterminated quote", "commands": [_t_cmd(["rm", "-rf", "/home/alice"])]}})
	"unparsable-shell" in _t_ask(inp)
	"rm-rf-home" in _t_deny(inp)
}

test_missing_shell_document_asks if {
	inp := object.remove(_t_simple(["ls"]), ["shell"])
	_t_ask(inp) == {"unparsable-shell"}
}

test_clean_parse_has_no_parse_verdict if {
	_t_allowed(_t_simple(["ls", "-la"]))
}

# ---------------------------------------------------------------------------------------------
# rm -r, find -delete, chmod -R: judged on input.effects; whole-line cases in cases/destructive_shell.json
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# git
# ---------------------------------------------------------------------------------------------

test_force_push_main if {
	_t_deny(_t_simple(["git", "push", "--force", "origin", "main"])) == {"force-push-protected"}
}

test_force_push_short_flag_master if {
	_t_deny(_t_simple(["git", "push", "-f", "origin", "master"])) == {"force-push-protected"}
}

test_force_push_cluster_flag if {
	_t_deny(_t_simple(["git", "push", "-uf", "origin", "main"])) == {"force-push-protected"}
}

test_force_with_lease_main if {
	_t_deny(_t_simple(["git", "push", "--force-with-lease", "origin", "main"])) == {"force-push-protected"}
}

test_force_with_lease_value_main if {
	_t_deny(_t_simple(["git", "push", "--force-with-lease=main:abc123", "origin", "main"])) == {"force-push-protected"}
}

test_force_push_release_branch if {
	_t_deny(_t_simple(["git", "push", "-f", "origin", "release/2.1"])) == {"force-push-protected"}
}

test_force_push_refspec_to_main if {
	_t_deny(_t_simple(["git", "push", "-f", "origin", "HEAD:refs/heads/main"])) == {"force-push-protected"}
}

test_force_push_no_branch if {
	_t_deny(_t_simple(["git", "push", "--force"])) == {"force-push-protected"}
}

test_force_push_remote_only if {
	_t_deny(_t_simple(["git", "push", "--force", "origin"])) == {"force-push-protected"}
}

test_force_push_head if {
	_t_deny(_t_simple(["git", "push", "-f", "origin", "HEAD"])) == {"force-push-protected"}
}

test_plus_refspec_main if {
	_t_deny(_t_simple(["git", "push", "origin", "+main"])) == {"force-push-protected"}
}

test_force_push_all if {
	_t_deny(_t_simple(["git", "push", "--force", "--all", "origin"])) == {"force-push-protected"}
}

test_push_mirror if {
	_t_deny(_t_simple(["git", "push", "--mirror", "origin"])) == {"force-push-protected"}
}

test_force_push_with_git_c_option if {
	_t_deny(_t_simple(["git", "-C", "/home/alice/proj", "push", "-f", "origin", "main"])) == {"force-push-protected"}
}

test_force_push_push_option_value_is_not_a_branch if {
	# `-o ci.skip` is an option value: the refspec is still main
	_t_deny(_t_simple(["git", "push", "-o", "ci.skip", "-f", "origin", "main"])) == {"force-push-protected"}
}

test_force_push_feature_branch_not_denied if {
	_t_allowed(_t_simple(["git", "push", "--force", "origin", "feature-x"]))
}

test_plus_refspec_feature_not_denied if {
	_t_allowed(_t_simple(["git", "push", "origin", "+feature-x"]))
}

test_plain_push_main_allowed if {
	_t_allowed(_t_simple(["git", "push", "origin", "main"]))
}

test_plain_push_no_branch_allowed if {
	_t_allowed(_t_simple(["git", "push"]))
}

test_push_delete_main if {
	_t_deny(_t_simple(["git", "push", "origin", "--delete", "main"])) == {"push-delete-protected"}
}

test_push_colon_delete_master if {
	_t_deny(_t_simple(["git", "push", "origin", ":master"])) == {"push-delete-protected"}
}

test_push_delete_feature_allowed if {
	_t_allowed(_t_simple(["git", "push", "origin", "--delete", "feature-x"]))
}

test_git_reset_hard if {
	_t_deny(_t_simple(["git", "reset", "--hard", "HEAD~3"])) == {"git-reset-hard"}
}

test_git_reset_soft_allowed if {
	_t_allowed(_t_simple(["git", "reset", "--soft", "HEAD~1"]))
}

test_git_log_mentioning_reset_allowed if {
	_t_allowed(_t_simple(["git", "log", "--grep", "reset", "--hard"]))
}

test_git_checkout_dot if {
	_t_deny(_t_simple(["git", "checkout", "--", "."])) == {"git-discard-changes"}
	_t_deny(_t_simple(["git", "checkout", "."])) == {"git-discard-changes"}
}

test_git_checkout_force if {
	_t_deny(_t_simple(["git", "checkout", "-f", "main"])) == {"git-discard-changes"}
	_t_deny(_t_simple(["git", "checkout", "-qf", "main"])) == {"git-discard-changes"}
}

test_git_switch_force if {
	_t_deny(_t_simple(["git", "switch", "-f", "main"])) == {"git-discard-changes"}
	_t_deny(_t_simple(["git", "switch", "--discard-changes", "main"])) == {"git-discard-changes"}
	_t_allowed(_t_simple(["git", "switch", "-c", "feature-x"]))
	_t_allowed(_t_simple(["git", "switch", "main"]))
	_t_allowed(_t_simple(["git", "switch", "-cfeature"]))
	_t_allowed(_t_simple(["git", "checkout", "-qbfeature"]))
	_t_allowed(_t_simple(["git", "switch", "--", "-f"]))
}

test_git_restore_dot if {
	_t_deny(_t_simple(["git", "restore", "."])) == {"git-discard-changes"}
	_t_deny(_t_simple(["git", "restore", "--staged", "--worktree", "."])) == {"git-discard-changes"}
}

test_git_restore_staged_allowed if {
	_t_allowed(_t_simple(["git", "restore", "--staged", "."]))
}

test_git_checkout_file_or_branch_allowed if {
	_t_allowed(_t_simple(["git", "checkout", "--", "src/app.py"]))
	_t_allowed(_t_simple(["git", "checkout", "-b", "feature-x"]))
	_t_allowed(_t_simple(["git", "checkout", "main"]))
	_t_allowed(_t_simple(["git", "restore", "README.md"]))
}

test_git_clean_fdx if {
	_t_deny(_t_simple(["git", "clean", "-fdx"])) == {"git-clean-force"}
}

test_git_clean_split_flags if {
	_t_deny(_t_simple(["git", "clean", "-f", "-d"])) == {"git-clean-force"}
}

test_git_clean_f_asks if {
	inp := _t_simple(["git", "clean", "-f"])
	_t_ask(inp) == {"git-clean-force"}
	count(_t_deny(inp)) == 0
}

test_git_clean_dry_run_allowed if {
	_t_allowed(_t_simple(["git", "clean", "-ndx"]))
}

test_git_status_allowed if {
	_t_allowed(_t_simple(["git", "status", "--short"]))
}

# ---------------------------------------------------------------------------------------------
# remote code
# ---------------------------------------------------------------------------------------------

# remote code (code downloaded or decoded, run through stdin, a substitution or a file) is judged on
# input.effects (`flow`, `through`): whole-line cases in cases/destructive_shell.json

# privileges are judged on input.effects (privilege, and what a privileged command does): whole-line
# cases in cases/destructive_shell.json

# ---------------------------------------------------------------------------------------------
# disks, devices, power, fork bombs
# ---------------------------------------------------------------------------------------------

# raw device writes, disk formats and power-off are judged on input.effects: whole-line cases in
# cases/destructive_shell.json

test_fork_bomb_classic if {
	inp := _t_shell(":(){ :|:& };:", [_t_at([":"], 0, 0, 1), _t_at([":"], 0, 1, 1), _t_at([":"], 1, 0, 0)])
	"fork-bomb" in _t_deny(inp)
}

test_fork_bomb_named if {
	inp := _t_shell("bomb() { bomb | bomb & }; bomb", [_t_at(["bomb"], 0, 0, 1), _t_at(["bomb"], 0, 1, 1), _t_at(["bomb"], 1, 0, 0)])
	"fork-bomb" in _t_deny(inp)
}

# the pipes' neighbourhoods are searched (docs/reliability.md): a pipe in a chain, and a name inside a longer run
test_fork_bomb_in_a_pipe_chain if {
	inp := _t_shell("x() { ls | x | x & }; x", [_t_at(["ls"], 0, 0, 1), _t_at(["x"], 0, 1, 1), _t_at(["x"], 0, 2, 1), _t_at(["x"], 1, 0, 0)])
	"fork-bomb" in _t_deny(inp)
}

test_fork_bomb_name_within_longer_runs if {
	inp := _t_shell("b() { ab|ba & }; b", [_t_at(["ab"], 0, 0, 1), _t_at(["ba"], 0, 1, 1), _t_at(["b"], 1, 0, 0)])
	"fork-bomb" in _t_deny(inp)
}

test_definitions_with_no_name_around_a_pipe_allowed if {
	inp := _t_shell("echo 'a(){ b(){' | sort", [_t_at(["echo", "a(){ b(){"], 0, 0, 0), _t_at(["sort"], 0, 1, 0)])
	not "fork-bomb" in _t_deny(inp)
}

test_ordinary_function_allowed if {
	inp := _t_shell("build() { make | tee build.log; }; build", [_t_at(["make"], 0, 0, 1), _t_at(["tee", "build.log"], 0, 1, 1), _t_at(["build"], 1, 0, 0)])
	_t_allowed(inp)
}

test_everyday_commands_allowed if {
	every argv in [
		["ls", "-la"],
		["npm", "test"],
		["pytest", "-q", "tests"],
		["git", "commit", "-m", "fix: reset --hard docs"],
		["grep", "-rn", "TODO", "src"],
		["mkdir", "-p", "build/out"],
		["cp", "-r", "assets", "dist"],
	] {
		_t_allowed(_t_simple(argv))
	}
}


# Found by the differential harness: a `>` redirect whose path is null (the parser could not read it)
# made regorus fail the whole decision; OPA asked, as unparsable-shell says.
test_null_redirect_path_is_not_a_device if {
	not _device(null)
	count(deny) == 0 with input as {
		"event": "BeforeTool", "tool": {"kind": "shell", "name": "run_shell_command", "input": {}},
		"shell": {"commands": [{"name": "dd", "args": [], "redirects": [{"op": ">>", "path": null}], "wrappers": [], "sudo": false}]},
		"project_dir": "/p", "home": "/h", "cwd": "/p",
	}
}

# The effect model (input.effects)
_effect_input(effects) := {
	"event": "BeforeTool",
	"tool": {"kind": "shell", "name": "run_shell_command"},
	"home": "/home/u",
	"project_dir": "/p",
	"shell": {"source": "x", "parse_error": false, "facts": 1, "commands": [{"name": "x", "argv": ["x"], "args": [], "redirects": [], "wrappers": [], "sudo": false}]},
	"effects": effects,
}

test_downloaded_code_run_is_denied if {
	d := deny with input as _effect_input([{"op": "exec", "path": "/p/x.sh", "raw": "x.sh", "known": false, "flow": "fetch", "program": "sh", "via": "shell", "code": {"lang": "sh", "text": ""}}])
	some v in d
	v.id == "download-then-exec"
}

test_unknown_code_is_asked if {
	i := _effect_input([{"op": "exec", "path": "", "known": false, "program": "sh", "via": "shell", "code": {"lang": "sh", "text": ""}}])
	_r1 := deny with input as i
	count(_r1) == 0
	_s := ask with input as i
	some v in _s
	v.id == "unknown-code"
}

test_block_device_is_denied_a_disk_image_is_not if {
	_s := deny with input as _effect_input([{"op": "device", "path": "/dev/sdb1", "known": true, "block": true, "program": "mke2fs", "via": "shell"}])
	some v in _s
	v.id == "disk-format"
	_r2 := deny with input as _effect_input([{"op": "device", "path": "/p/disk.img", "known": true, "block": false, "program": "mkfs.ext4", "via": "shell"}])
	count(_r2) == 0
}

test_privilege_effect_is_asked if {
	_s := ask with input as _effect_input([{"op": "privilege", "path": "", "known": true, "program": "sudoedit", "via": "shell"}])
	some v in _s
	v.id == "sudo"
}

test_executing_config_write_is_asked if {
	_s := ask with input as _effect_input([{"op": "write", "path": "/home/u/.gitconfig", "known": true, "program": "git", "via": "shell", "key": "core.pager", "executes": true, "value": "sh -c x"}])
	some v in _s
	v.id == "exec-config"
}
