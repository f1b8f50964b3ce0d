# Example context and message:
#   * SessionStart: tell the model that the session is guarded and that a blocked call must not be
#     retried in another form (the most useful thing a guard can say up front), and show the user a
#     one-line banner.
#   * AfterTool (shell): when `git push` was rejected as non-fast-forward, remind the model to
#     integrate the remote commits instead of force-pushing; this pairs with the force-push rules
#     in hookd.destructive_shell and hookd.example_rewrite.
package hookd.example_context

# No `kinds`: SessionStart has no tool. A shell call only with `git push` on the line (or unparsed).
routing := {"events": ["SessionStart", "AfterTool"], "commands": ["git push"]}

context contains {"id": "session-guard", "text": text} if {
	input.event == "SessionStart"
	text := concat(" ", [
		"This session is guarded by hookd: destructive shell commands (recursive deletes outside the project,",
		"force-pushes to protected branches, piping downloads into a shell), reads of secrets (.env files,",
		"private keys, cloud credentials) and writes to protected paths (.git internals, agent and hook settings)",
		"are blocked. If a tool call is blocked, do not retry it in another form: say what you needed and ask the user.",
	])
}

message contains {"id": "session-banner", "text": "hookd is guarding this session (default policies: destructive shell, protected paths, secret reads)."} if {
	input.event == "SessionStart"
}

context contains {"id": "push-rejected-hint", "text": text} if {
	input.event == "AfterTool"
	input.tool.kind == "shell"
	_ran_git_push
	_push_rejected
	text := concat(" ", [
		"The push was rejected because the remote branch has commits this clone does not have.",
		"Fetch and integrate them (git pull --rebase, resolve conflicts, run the tests), then push again;",
		"do not force-push over other people's work.",
	])
}

_ran_git_push if {
	some c in input.shell.commands
	c.name == "git"
	"push" in c.argv
}

# Fallback when the AfterTool input carries no parsed shell document (object.get: `not
# is_array(input.x)` is false in OPA when input.x is undefined; a helper rule would cost an
# evaluation on every AfterTool call)
_ran_git_push if {
	not is_array(object.get(input, ["shell", "commands"], null))
	regex.match(`(^|[\s;&|(])git\s+(\S+\s+)*push(\s|$)`, input.tool.input.command)
}

# Gemini puts the output in tool_response.llmContent, Claude in tool_response.stdout/stderr:
# search the whole response as text.
_response := lower(json.marshal(input.raw.tool_response))

_push_rejected if contains(_response, "non-fast-forward")

_push_rejected if contains(_response, "(fetch first)")
