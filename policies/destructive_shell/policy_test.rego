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

test_routing_is_before_tool_shell_and_unknown_tools if {
	object.remove(routing, ["shell", "text"]) == {"events": ["BeforeTool"], "kinds": ["shell", "mcp", "other"]}
	routing.shell == ["effect-write", "effect-unknown", "effect-device", "effect-privilege", "effect-config", "effect-signal", "effect-fork"]
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
# work thrown away (a `delete` with `what`): whole-line cases in cases/destructive_shell.json (the effect model
# gives git's discards from git.json); here the effect shapes the rules judge
# ---------------------------------------------------------------------------------------------

_t_lost(fields) := _effect_input([object.union({"op": "delete", "path": "", "known": true, "recursive": false, "to": "", "program": "git", "via": "shell", "class": ""}, fields)])

test_uncommitted_changes_of_the_whole_tree_are_denied if {
	_t_deny(_t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "uncommitted", "whole": true, "head": true})) == {"git-reset-hard"}
	_t_deny(_t_lost({"path": "/p/src", "class": "project", "recursive": true, "what": "uncommitted", "whole": true})) == {"git-discard-changes"}
}

test_uncommitted_changes_of_named_files_are_not_judged_here if {
	_t_allowed(_t_lost({"path": "/p/a.py", "class": "project", "what": "uncommitted", "whole": false}))
	_t_allowed(_t_lost({"path": "/p/src", "class": "project", "recursive": true, "what": "uncommitted", "whole": false}))
}

test_untracked_work_lost if {
	_t_deny(_t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "ignored", "whole": true})) == {"git-clean-force"}
	_t_deny(_t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "untracked-trees", "whole": true})) == {"git-clean-force"}
	inp := _t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "untracked", "whole": true})
	_t_ask(inp) == {"git-clean-force"}
	count(_t_deny(inp)) == 0
}

test_a_rewritten_and_pruned_history_is_asked if {
	inp := _t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "rewritten", "whole": true})
	_t_ask(inp) == {"git-rewrite-history"}
	count(_t_deny(inp)) == 0
}

test_an_expired_reflog_is_asked if {
	inp := _t_lost({"path": "/p", "class": "project-root", "recursive": true, "what": "expired", "whole": true})
	_t_ask(inp) == {"git-expire-reflog"}
	count(_t_deny(inp)) == 0
}

test_remote_history_of_a_protected_branch if {
	every ref in ["main", "master", "release/2.1", "", "*"] {
		_t_deny(_t_lost({"what": "history", "ref": ref, "url": "origin"})) == {"force-push-protected"}
	}
	_t_allowed(_t_lost({"what": "history", "ref": "feature-x", "url": "origin"}))
}

test_remote_branch_deleted if {
	_t_deny(_t_lost({"what": "branch", "ref": "main", "url": "origin"})) == {"push-delete-protected"}
	_t_allowed(_t_lost({"what": "branch", "ref": "feature-x", "url": "origin"}))
}

test_a_remote_branch_named_at_run_time_is_asked if {
	every ref in ["$b", "${xargs_input}", "$(git branch --show-current)"] {
		_t_ask(_t_lost({"what": "branch", "ref": ref, "url": "origin"})) == {"remote-ref-at-run-time"}
		_t_ask(_t_lost({"what": "history", "ref": ref, "url": "origin"})) == {"remote-ref-at-run-time"}
	}
	_t_allowed(_t_lost({"what": "branch", "ref": "feature-x", "url": "origin"}))
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

# a reserved word before the definition is no part of its name (tests/unit/policy/test_spelling_invariance.py)
test_fork_bomb_inside_a_compound_command if {
	inp := _t_shell("if true; then :(){ :|:& };:; fi", [_t_at([":"], 0, 0, 1), _t_at([":"], 0, 1, 1), _t_at([":"], 1, 0, 0)])
	"fork-bomb" in _t_deny(inp)
}

test_fork_bomb_defined_with_function if {
	inp := _t_shell("for i in 1; do function b { b | b & }; b; done", [_t_at(["b"], 0, 0, 1), _t_at(["b"], 0, 1, 1), _t_at(["b"], 1, 0, 0)])
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

# a downloaded file on the program's stdin (`curl -o x.sh … && bash < x.sh`): `through` "file", no rule of its own
test_downloaded_code_through_a_file_on_stdin_is_denied if {
	e := {"op": "exec", "path": "", "raw": "", "known": false, "flow": "fetch", "through": "file", "program": "bash", "via": "shell", "code": {"lang": "sh", "text": ""}}
	some v in deny with input as _effect_input([e])
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

# a fork bomb judged on what the line does (`op: fork`): the source here holds no `{` nor `|`
test_fork_effect_is_denied if {
	_s := deny with input as _effect_input([{"op": "fork", "path": "", "known": true, "program": ":", "via": "shell"}])
	some v in _s
	v.id == "fork-bomb"
	_r := deny with input as _effect_input([{"op": "exec", "path": "", "known": true, "program": "sh", "via": "shell"}])
	count(_r) == 0
}

# files given back to the caller in the project (`sudo chown -R "$USER" .`): neither asked nor denied; elsewhere denied
test_files_given_back_to_the_caller_in_the_project_pass if {
	given := {"op": "chmod", "path": "/p", "known": true, "program": "chown", "via": "shell", "class": "project-root", "owner": "caller", "privileged": true}
	sudo := {"op": "privilege", "path": "", "known": true, "program": "chown", "via": "shell", "privileged": true}
	count(deny) == 0 with input as _effect_input([sudo, given])
	count(ask) == 0 with input as _effect_input([sudo, given])
	system := object.union(given, {"path": "/etc/shadow", "class": "system"})
	"sudo-destructive" in {v.id | some v in deny} with input as _effect_input([sudo, system])
	to_root := object.remove(given, ["owner"])
	"sudo-destructive" in {v.id | some v in deny} with input as _effect_input([sudo, to_root])
	other := {"op": "delete", "path": "/p/x", "known": true, "program": "rm", "via": "shell", "class": "project", "privileged": true}
	"sudo" in {v.id | some v in ask} with input as _effect_input([sudo, given, other])
}

# another command's sudo on the same line (`sudo chown -R "$USER" . && sudo bash`) is asked: it gives nothing back
test_another_commands_sudo_beside_files_given_back_is_asked if {
	given := {"op": "chmod", "path": "/p", "known": true, "program": "chown", "via": "shell", "class": "project-root", "owner": "caller", "privileged": true}
	sudo := {"op": "privilege", "path": "", "known": true, "program": "chown", "via": "shell", "privileged": true}
	shell := object.union(sudo, {"program": "bash"})
	"sudo" in {v.id | some v in ask} with input as _effect_input([sudo, given, shell])
}

# a project's program given capabilities that open no way to root (`sudo setcap cap_net_bind_service=+ep ./srv`):
# neither its grant nor its sudo asked; an escalating capability, or one given to a file beyond the project, is
test_confined_capabilities_on_a_project_file_pass if {
	sudo := {"op": "privilege", "path": "", "known": true, "program": "setcap", "via": "shell", "privileged": true}
	grant := {"op": "privilege", "path": "/p/srv", "known": true, "program": "setcap", "via": "shell", "class": "project", "grants": "capabilities", "escalates": false, "privileged": true}
	count(ask) == 0 with input as _effect_input([sudo, grant])
	setuid := object.union(grant, {"escalates": true})
	"privilege-granted" in {v.id | some v in ask} with input as _effect_input([sudo, setuid])
	"sudo" in {v.id | some v in ask} with input as _effect_input([sudo, setuid])
	system := object.union(grant, {"path": "/usr/bin/python3", "class": "system"})
	"sudo" in {v.id | some v in ask} with input as _effect_input([sudo, system])
}

# one system file's mode or owner changed, without sudo (an agent running as root): denied unless access is kept
test_a_system_files_mode_change_is_denied_unless_it_keeps_access if {
	shadow := {"op": "chmod", "path": "/etc/shadow", "known": true, "program": "chmod", "via": "shell", "class": "system"}
	"chmod-system" in {v.id | some v in deny} with input as _effect_input([shadow])
	kept := {"op": "chmod", "path": "/usr/local/bin/kubectl", "known": true, "program": "chmod", "via": "shell", "class": "system", "keeps_access": true}
	count(deny) == 0 with input as _effect_input([kept])
	mine := object.union(shadow, {"path": "/p/x", "class": "project"})
	count(deny) == 0 with input as _effect_input([mine])
}

test_privilege_effect_is_asked if {
	_s := ask with input as _effect_input([{"op": "privilege", "path": "", "known": true, "program": "sudoedit", "via": "shell"}])
	some v in _s
	v.id == "sudo"
}

test_a_privilege_granted_to_a_file_is_asked_as_itself if {
	i := _effect_input([{"op": "privilege", "path": "/tmp/.b", "raw": "/tmp/.b", "known": true, "program": "chmod", "via": "shell", "grants": "setuid"}])
	_t_ask(i) == {"privilege-granted"}
	count(_t_deny(i)) == 0
}

test_executing_config_write_is_asked if {
	_s := ask with input as _effect_input([{"op": "write", "path": "/home/u/.gitconfig", "known": true, "program": "git", "via": "shell", "key": "core.pager", "executes": true, "value": "sh -c x"}])
	some v in _s
	v.id == "exec-config"
}

test_code_built_at_run_time_is_asked if {
	i := _effect_input([{"op": "exec", "path": "", "known": false, "built": true, "program": "eval", "via": "shell", "code": {"lang": "sh", "text": "$cmd"}}])
	_t_ask(i) == {"dynamic-command"}
	count(_t_deny(i)) == 0
	_t_allowed(_effect_input([{"op": "exec", "path": "", "known": true, "program": "eval", "via": "shell", "code": {"lang": "sh", "text": "echo hi"}}]))
}

test_inline_code_hookd_cannot_follow_is_asked if {
	i := _effect_input([{"op": "exec", "path": "", "known": false, "program": "perl", "via": "shell", "code": {"lang": "perl", "text": "unlink $f"}}])
	_t_ask(i) == {"inline-code"}
	count(_t_deny(i)) == 0
	_t_allowed(_effect_input([{"op": "exec", "path": "", "known": true, "program": "awk", "via": "shell", "code": {"lang": "awk", "text": "{print $1}"}}]))
}

# A tool hookd has no table for (an MCP server's delete_directory): its recursive delete outside the project
_t_mcp_delete(path, class) := {
	"event": "BeforeTool",
	"tool": {"kind": "mcp", "name": "mcp__fs__delete_directory"},
	"effects": [{"op": "delete", "path": path, "known": true, "recursive": true, "class": class, "program": "mcp__fs__delete_directory", "via": "tool"}],
}

test_an_mcp_tool_deleting_a_directory_outside_the_project_is_denied if {
	some v in deny with input as _t_mcp_delete("/home/u/Documents", "outside")
	v.id == "rm-rf-outside-project"
}

test_an_mcp_tools_git_line_throwing_work_away_is_judged_as_that_work if {
	lost := {"op": "delete", "path": "/p", "raw": ".", "known": true, "recursive": true, "class": "project-root", "program": "git", "via": "tool", "what": "untracked", "whole": true}
	inp := {"event": "BeforeTool", "tool": {"name": "mcp__git__git_clean", "kind": "mcp"}, "effects": [lost]}
	count(deny) == 0 with input as inp
	some v in ask with input as inp
	v.id == "git-clean-force"
}

test_an_mcp_tool_deleting_a_hosted_resource_with_its_contents_is_asked if {
	e := {"op": "delete", "path": "", "known": true, "recursive": true, "program": "mcp__s3__delete_bucket", "via": "tool", "what": "hosted", "name": "backups"}
	inp := {"event": "BeforeTool", "tool": {"name": "mcp__s3__delete_bucket", "kind": "mcp"}, "effects": [e]}
	"remote-resource-delete" in _t_ask(inp)
	count(deny) == 0 with input as inp
}

test_an_mcp_tool_deleting_a_build_directory_is_allowed if {
	count(deny) == 0 with input as _t_mcp_delete("/p/build", "project")
}

test_a_sweep_of_scratch_space_is_allowed_one_outside_the_project_is_denied if {
	_t_allowed(_effect_input([{"op": "delete", "path": "/tmp/preview", "raw": "/tmp/preview/", "known": true, "recursive": true, "sweep": true, "class": "scratch", "program": "rsync", "via": "shell"}]))
	"find-delete-outside-project" in _t_deny(_effect_input([{"op": "delete", "path": "/srv/site", "raw": "/srv/site/", "known": true, "recursive": true, "sweep": true, "class": "outside", "program": "rsync", "via": "shell"}]))
}

test_a_hosted_repository_deleted_is_denied if {
	"remote-repo-delete" in _t_deny(_effect_input([{"op": "delete", "path": "", "known": true, "recursive": false, "program": "gh", "via": "shell", "what": "repository", "name": "acme/api"}]))
	"remote-repo-delete" in _t_deny(_effect_input([{"op": "delete", "path": "", "known": true, "recursive": false, "program": "glab", "via": "shell", "what": "repository", "name": ""}]))
}

test_another_hosted_resource_deleted_through_a_forge_api_is_asked if {
	i := _effect_input([{"op": "delete", "path": "", "known": true, "recursive": false, "program": "gh", "via": "shell", "what": "hosted", "name": "repos/acme/api/git/refs/heads/main"}])
	"remote-resource-delete" in _t_ask(i)
	not "remote-repo-delete" in _t_deny(i)
}

test_a_hosted_deletes_reason_says_a_forge_only_for_a_forge_api if {
	forge := _effect_input([{"op": "delete", "path": "", "known": true, "recursive": false, "program": "gh", "via": "shell", "what": "hosted", "name": "repos/acme/api/releases/1"}])
	store := _effect_input([{"op": "delete", "path": "", "known": true, "recursive": true, "program": "aws", "via": "shell", "what": "hosted", "name": "s3://backups"}])
	some a in ask with input as forge
	a.id == "remote-resource-delete"
	contains(a.reason, "on a code forge through its API")
	some b in ask with input as store
	b.id == "remote-resource-delete"
	not contains(b.reason, "forge")
	contains(b.reason, "with everything in it on the hosted service it manages")
}

test_a_package_removed_with_sudo_is_asked_not_denied if {
	i := _effect_input([
		{"op": "privilege", "path": "", "known": true, "program": "sudo", "via": "shell"},
		{"op": "delete", "path": "", "known": true, "recursive": false, "program": "pip", "via": "shell", "what": "package", "name": "requests", "privileged": true},
	])
	count(_t_deny(i)) == 0
	_t_ask(i) == {"sudo"}
}

test_the_distributions_packages_installed_with_sudo_are_allowed if {
	i := _effect_input([{"op": "privilege", "path": "", "known": true, "program": "apt-get", "via": "shell", "privileged": true, "installs": "packages"}])
	count(_t_deny(i)) == 0
	count(_t_ask(i)) == 0
}

test_a_package_install_with_sudo_beside_another_privilege_is_asked if {
	i := _effect_input([
		{"op": "privilege", "path": "", "known": true, "program": "apt-get", "via": "shell", "privileged": true, "installs": "packages"},
		{"op": "privilege", "path": "", "known": true, "program": "bash", "via": "shell", "privileged": true},
	])
	_t_ask(i) == {"sudo"}
}

_mcp_run(flow) := {
	"event": "BeforeTool",
	"tool": {"kind": "mcp", "name": "mcp__dc__start_process"},
	"home": "/home/u",
	"project_dir": "/p",
	"effects": [{"op": "exec", "path": "", "known": false, "via": "tool", "program": "sh", "flow": flow}],
}

test_an_mcp_tool_running_downloaded_code_is_denied if {
	d := deny with input as _mcp_run("fetch")
	some v in d
	v.id == "download-then-exec"
}

test_an_mcp_tool_running_code_its_line_wrote_is_not_denied_here if {
	count(deny) == 0 with input as _mcp_run("write")
}

test_one_home_file_lost_is_asked_unless_it_holds_nothing if {
	lost := {"op": "delete", "path": "/home/u/Documents/thesis.md", "raw": "/home/u/Documents/thesis.md", "known": true, "recursive": false, "class": "outside", "program": "dd", "via": "shell", "emptied": true}
	"home-file-lost" in _t_ask(_effect_input([lost]))
	not "home-file-lost" in _t_deny(_effect_input([lost]))
	_t_allowed(_effect_input([object.union(lost, {"holds": false})]))
	_t_allowed(_effect_input([object.union(lost, {"path": "/p/notes.md", "raw": "notes.md", "class": "project"})]))
	_t_allowed(_effect_input([object.union(lost, {"path": "/srv/data/x.db", "raw": "/srv/data/x.db"})]))
}

test_a_backup_history_pruned_is_asked if {
	i := _effect_input([{"op": "delete", "path": "", "known": true, "recursive": false, "program": "borg", "via": "shell", "what": "backups", "name": "/b/repo"}])
	"backup-history-pruned" in _t_ask(i)
	not "backup-history-pruned" in _t_deny(i)
}

test_stashes_dropped_by_run_time_names_are_asked if {
	i := _effect_input([{"op": "delete", "path": "/p", "known": true, "recursive": true, "program": "git", "via": "shell", "what": "stashes", "whole": true}])
	"git-stashes-dropped" in _t_ask(i)
	not "git-discard-changes" in _t_deny(i)
}
