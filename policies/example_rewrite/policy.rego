# Example rewrite: `git push --force` / `git push -f` to a feature branch becomes
# `git push --force-with-lease`, which refuses to overwrite commits on the remote that this clone
# has not seen (somebody else's push), while still letting the agent update its own rebased branch.
#
# Conservative on purpose: only a single simple command, written exactly as its argv joined by
# single spaces (no quotes, variables, wrappers or env assignments), so that swapping one word of the
# command string is exact. The patch carries only `command`; hookd merges it over the full tool
# arguments. Force-pushes to protected branches are denied by hookd.destructive_shell instead, and
# data.json keeps the same branch list so the two packages never both act on one command.
package hookd.example_rewrite

routing := {"events": ["BeforeTool"], "kinds": ["shell"], "commands": ["git push"]}

_cfg := data.example_rewrite

rewrite contains {"id": "force-with-lease", "tool_input": {"command": command}} if {
	input.event == "BeforeTool"
	input.tool.kind == "shell"
	count(input.shell.commands) == 1
	c := input.shell.commands[0]

	# `git push` with nothing between git and push (no -C/-c, which could change what is pushed
	# where); first, as the cheapest test that fails for almost every command
	c.argv[1] == "push"
	c.name == "git"
	not input.shell.parse_error == true
	_plain(c)
	source := input.tool.input.command
	words := split(source, " ")
	words == c.argv
	some w in words
	w in {"--force", "-f"}
	_explicit_unprotected_target(c)
	command := concat(" ", [_swap(w2) | some w2 in words])
}

_swap(w) := "--force-with-lease" if {
	w in {"--force", "-f"}
} else := w

_plain(c) if {
	c.argv[0] == "git"
	c.name == "git"
	count(c.wrappers) == 0
	c.sudo == false
	count(c.env) == 0
	count(c.redirects) == 0
	c.depth == 0
}

_rest(c) := array.slice(c.argv, 2, count(c.argv))

_positionals(c) := [w | some w in _rest(c); not startswith(w, "-")]

# a remote and at least one refspec, every one of them a plain unprotected branch
_explicit_unprotected_target(c) if {
	not _unsupported_option(c)
	pos := _positionals(c)
	count(pos) >= 2
	refs := array.slice(pos, 1, count(pos))
	every ref in refs {
		_plain_branch_ref(ref)
		not _protected(_dst(ref))
	}
}

# options whose value would be mistaken for a refspec, and pushes of many refs: leave them alone
_unsupported_option(c) if {
	some w in _rest(c)
	w in {"-o", "--push-option", "--repo", "--receive-pack", "--exec"}
}

_unsupported_option(c) if {
	some w in _rest(c)
	w in {"--all", "--mirror", "--branches", "--tags", "--delete", "-d"}
}

_plain_branch_ref(ref) if {
	not startswith(ref, "+")
	not startswith(ref, ":")
	regex.match(`^[A-Za-z0-9._/:-]+$`, ref)
}

_dst(ref) := trim_prefix(b, "refs/heads/") if {
	parts := split(ref, ":")
	b := parts[count(parts) - 1]
}

_protected(b) if b in _cfg.protected_branches

_protected(b) if {
	some p in _cfg.protected_branch_prefixes
	startswith(b, p)
}

_protected(b) if b in {"HEAD", "@", ""}
