# Tests for hookd.example_context, with inputs in the shape of docs/policies.md.
package hookd.example_context

# ---------------------------------------------------------------------------------------------
# Test-input builders (package-local: regorus cannot mock across packages)
# ---------------------------------------------------------------------------------------------

_t_base := {
	"client": "gemini",
	"session": {"id": "s1", "transcript_path": ""},
	"cwd": "/home/alice/proj",
	"project_dir": "/home/alice/proj",
	"caller": {"uid": 1000, "pid": 4242},
	"home": "/home/alice",
}

_t_session_start(source) := object.union(_t_base, {
	"event": "SessionStart",
	"tool": null,
	"raw": {"hook_event_name": "SessionStart", "source": source},
})

_t_cmd(argv, pipeline) := {
	"argv": argv, "name": argv[0], "env": {}, "sudo": false, "wrappers": [],
	"pipeline": pipeline, "position": 0, "depth": 0, "redirects": [], "args": [],
}

# an AfterTool event for a shell command and the text it printed
_t_after_shell(source, cmds, output) := object.union(_t_base, {
	"event": "AfterTool",
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": source}},
	"shell": {"source": source, "parse_error": false, "error": null, "commands": cmds},
	"raw": {
		"hook_event_name": "AfterTool",
		"tool_name": "run_shell_command",
		"tool_input": {"command": source},
		"tool_response": {"llmContent": concat("", ["Command: ", source, "\nOutput: ", output]), "returnDisplay": output},
	},
})

_t_rejected := " ! [rejected]        feature-x -> feature-x (non-fast-forward)\nerror: failed to push some refs"

_t_ids(set) := {v.id | some v in set}

_t_context(inp) := _t_ids(c) if c := context with input as inp

_t_message(inp) := _t_ids(m) if m := message with input as inp

# ---------------------------------------------------------------------------------------------

test_routing if {
	routing == {"events": ["SessionStart", "AfterTool"], "commands": ["git push"]}
}

test_session_start_context_and_message if {
	_t_context(_t_session_start("startup")) == {"session-guard"}
	_t_message(_t_session_start("startup")) == {"session-banner"}
}

test_session_context_is_short if {
	some v in context with input as _t_session_start("resume")
	count(v.text) < 600
	contains(v.text, "hookd")
}

test_no_context_on_other_events if {
	inp := object.union(_t_session_start("startup"), {"event": "BeforeAgent", "raw": {"prompt": "hi"}})
	count(_t_context(inp)) == 0
	count(_t_message(inp)) == 0
}

test_push_rejected_hint if {
	argv := ["git", "push", "origin", "feature-x"]
	inp := _t_after_shell("git push origin feature-x", [_t_cmd(argv, 0)], _t_rejected)
	_t_context(inp) == {"push-rejected-hint"}
	count(_t_message(inp)) == 0
}

test_push_rejected_fetch_first if {
	inp := _t_after_shell("git push", [_t_cmd(["git", "push"], 0)], " ! [rejected]  main -> main (fetch first)")
	_t_context(inp) == {"push-rejected-hint"}
}

test_push_rejected_claude_shape if {
	inp := object.union(_t_base, {
		"client": "claude",
		"event": "AfterTool",
		"tool": {"name": "Bash", "kind": "shell", "input": {"command": "git push"}},
		"shell": {"source": "git push", "parse_error": false, "error": null, "commands": [_t_cmd(["git", "push"], 0)]},
		"raw": {"tool_response": {"stdout": "", "stderr": _t_rejected, "interrupted": false}},
	})
	_t_context(inp) == {"push-rejected-hint"}
}

test_push_rejected_without_parsed_shell if {
	inp := object.remove(_t_after_shell("cd web && git push", [], _t_rejected), ["shell"])
	_t_context(inp) == {"push-rejected-hint"}
}

test_successful_push_no_hint if {
	inp := _t_after_shell("git push origin feature-x", [_t_cmd(["git", "push", "origin", "feature-x"], 0)], "To github.com:a/b.git\n   1a2b3c..4d5e6f  feature-x -> feature-x")
	count(_t_context(inp)) == 0
}

test_other_command_mentioning_rejection_no_hint if {
	inp := _t_after_shell("cat notes.txt", [_t_cmd(["cat", "notes.txt"], 0)], _t_rejected)
	count(_t_context(inp)) == 0
}

test_read_tool_no_hint if {
	inp := object.union(_t_base, {
		"event": "AfterTool",
		"tool": {"name": "read_file", "kind": "read", "input": {"file_path": "log.txt"}},
		"paths": [],
		"raw": {"tool_response": {"llmContent": _t_rejected}},
	})
	count(_t_context(inp)) == 0
}
