# Tests for hookd.example_rewrite, with inputs in the shape of docs/policies.md.
package hookd.example_rewrite

# ---------------------------------------------------------------------------------------------
# Test-input builders (package-local: regorus cannot mock across packages)
# ---------------------------------------------------------------------------------------------

_t_project := "/home/alice/proj"

_t_cmd(argv) := {
	"argv": argv,
	"name": argv[0],
	"env": {},
	"sudo": false,
	"wrappers": [],
	"pipeline": 0,
	"position": 0,
	"depth": 0,
	"redirects": [],
	"args": [{"raw": w, "path": concat("/", [_t_project, w]), "in_project": true} | some i, w in argv; i > 0; not startswith(w, "-")],
}

_t_shell(source, cmds) := {
	"client": "gemini",
	"event": "BeforeTool",
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": source, "description": "push"}},
	"session": {"id": "s1", "transcript_path": ""},
	"cwd": _t_project,
	"project_dir": _t_project,
	"caller": {"uid": 1000, "pid": 4242},
	"home": "/home/alice",
	"shell": {"source": source, "parse_error": false, "error": null, "commands": cmds},
	"paths": [],
	"raw": {"tool_name": "run_shell_command", "tool_input": {"command": source, "description": "push"}},
}

_t_simple(argv) := _t_shell(concat(" ", argv), [_t_cmd(argv)])

_t_rewrites(inp) := r if r := rewrite with input as inp

_t_none(inp) if count(_t_rewrites(inp)) == 0

# ---------------------------------------------------------------------------------------------

test_routing if {
	routing == {"events": ["BeforeTool"], "kinds": ["shell"], "commands": ["git push"]}
}

test_force_feature_branch_rewritten if {
	_t_rewrites(_t_simple(["git", "push", "--force", "origin", "feature-x"])) == {{
		"id": "force-with-lease",
		"tool_input": {"command": "git push --force-with-lease origin feature-x"},
	}}
}

test_short_f_rewritten if {
	_t_rewrites(_t_simple(["git", "push", "-f", "-u", "origin", "fix/login"])) == {{
		"id": "force-with-lease",
		"tool_input": {"command": "git push --force-with-lease -u origin fix/login"},
	}}
}

test_refspec_to_feature_rewritten if {
	_t_rewrites(_t_simple(["git", "push", "origin", "HEAD:feature-x", "--force"])) == {{
		"id": "force-with-lease",
		"tool_input": {"command": "git push origin HEAD:feature-x --force-with-lease"},
	}}
}

test_patch_has_only_command if {
	some r in _t_rewrites(_t_simple(["git", "push", "--force", "origin", "feature-x"]))
	object.keys(r.tool_input) == {"command"}
}

test_protected_branch_not_rewritten if {
	# hookd.destructive_shell denies this one
	_t_none(_t_simple(["git", "push", "--force", "origin", "main"]))
	_t_none(_t_simple(["git", "push", "-f", "origin", "release/1.2"]))
	_t_none(_t_simple(["git", "push", "-f", "origin", "feature-x", "main"]))
}

test_no_branch_not_rewritten if {
	_t_none(_t_simple(["git", "push", "--force"]))
	_t_none(_t_simple(["git", "push", "--force", "origin"]))
}

test_already_lease_not_rewritten if {
	_t_none(_t_simple(["git", "push", "--force-with-lease", "origin", "feature-x"]))
}

test_plain_push_not_rewritten if {
	_t_none(_t_simple(["git", "push", "origin", "feature-x"]))
}

test_plus_refspec_not_rewritten if {
	_t_none(_t_simple(["git", "push", "origin", "+feature-x"]))
}

test_compound_command_not_rewritten if {
	source := "git fetch && git push --force origin feature-x"
	inp := _t_shell(source, [_t_cmd(["git", "fetch"]), object.union(_t_cmd(["git", "push", "--force", "origin", "feature-x"]), {"pipeline": 1})])
	_t_none(inp)
}

test_quoted_or_spaced_source_not_rewritten if {
	argv := ["git", "push", "--force", "origin", "feature-x"]
	_t_none(_t_shell("git push --force  origin feature-x", [_t_cmd(argv)]))
	_t_none(_t_shell("git push --force origin 'feature-x'", [_t_cmd(argv)]))
}

test_git_c_not_rewritten if {
	_t_none(_t_simple(["git", "-C", "../other", "push", "--force", "origin", "feature-x"]))
}

test_push_option_value_not_rewritten if {
	_t_none(_t_simple(["git", "push", "-o", "ci.skip", "--force", "origin", "feature-x"]))
}

test_env_or_sudo_not_rewritten if {
	argv := ["git", "push", "--force", "origin", "feature-x"]
	_t_none(_t_shell("GIT_TRACE=1 git push --force origin feature-x", [object.union(_t_cmd(argv), {"env": {"GIT_TRACE": "1"}})]))
	_t_none(_t_shell("sudo git push --force origin feature-x", [object.union(_t_cmd(argv), {"sudo": true, "wrappers": ["sudo"]})]))
}

test_parse_error_not_rewritten if {
	inp := _t_simple(["git", "push", "--force", "origin", "feature-x"])
	_t_none(object.union(inp, {"shell": {"parse_error": true, "error": "x"}}))
}

test_other_event_not_rewritten if {
	_t_none(object.union(_t_simple(["git", "push", "--force", "origin", "feature-x"]), {"event": "AfterTool"}))
}
