# Self-protection: no agent may change what decides whether or how hookd decides. The protected places are
# not listed here: the daemon derives them at run time from every registered agent's tamper surface (its
# hook settings in every scope, the files whose switches turn hooks off, its trust entries, the places that
# bring in an overriding hook) and from the running config (hookd's config, policy directories, project
# layers, bundles, decision log, runtime dir, units, shims, the installed package), and hands them to every
# call that can change a file as input.hookd.protected (daemon/hookd/selfprotect.py).
#
# What a call changes comes from input.effects (every op that writes, deletes, moves, links or changes a
# mode) where the enrichers give it, and otherwise, as protected_paths reads it, from a file tool's
# input.paths, shell redirects and the arguments of the writing programs in data.json. A place is hit when
# the change is the place or inside it, when a delete, move or mode change takes a directory that holds it,
# and when a copy, move or link lands a file of the same name in the directory that holds it.
#
# A file tool's write or edit of an agent's settings that its module judged to leave hookd's hooks, their
# switches and trust as they were (input.hookd.keeps: an MCP server or a permission added) goes through, as
# an input.paths write or as a tool's write effect; a shell write never does.
package hookd.self_protection

routing := {
	"events": ["BeforeTool"],
	"kinds": ["write", "edit", "shell", "mcp", "other"],
}

# One reason per changed path and place, naming every way the call changes it (`sed -i` read from the
# arguments and sed's write effect are one change, told once).
deny contains {"id": "hookd-self-protection", "reason": reason} if {
	some [path, what] in _hit
	vias := concat(", ", sort({t.via | some t in _changes; t.path == path; not _kept(t)}))
	reason := sprintf("%s on %s is blocked: it is %s, and changing it would change how hookd guards this session", [vias, path, what])
}

_hit contains [t.path, place.what] if {
	some t in _changes
	not _kept(t)
	some place in input.hookd.protected
	_hits(t, place.path)
}

# ---------------------------------------------------------------------------------------------
# What the call changes: {"path", "op", "via", "from"} (`from`: the file a copy, move or link takes)
# ---------------------------------------------------------------------------------------------

_changes contains {"path": e.path, "op": e.op, "via": _via(e), "from": "", "tool": e.via == "tool"} if {
	some e in input.effects
	e.op in {"write", "delete", "move", "chmod"}
	e.path != ""
}

_changes contains {"path": e.to, "op": "land", "via": _via(e), "from": e.path} if {
	some e in input.effects
	e.op in {"move", "copy", "link"}
	e.to != ""
}

_via(e) := e.program if {
	is_string(e.program)
	e.program != ""
} else := e.op

_changes contains {"path": p.path, "op": "write", "via": _tool_name, "from": "", "tool": true} if {
	input.tool.kind in {"write", "edit"}
	some p in input.paths
	p.access == "write"
}

_changes contains {"path": r.path, "op": "write", "via": sprintf("redirect %s", [r.op]), "from": ""} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	some r in c.redirects
	contains(r.op, ">")
	is_string(r.path) # null for `2>&1` and here-documents
}

_changes contains {"path": a.path, "op": _shell_op(c.name), "via": c.name, "from": ""} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	c.name in data.self_protection.changes_every_arg
	some a in c.args
}

_changes contains {"path": a.path, "op": "write", "via": sprintf("%s -i", [c.name]), "from": ""} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	c.name in data.self_protection.in_place_editors
	some tok in array.slice(c.argv, 1, count(c.argv))
	regex.match(`^(-[A-Za-z]*i|--in-place)`, tok)
	some a in c.args
}

# cp, install, rsync, ...: the last argument receives what the others name
_changes contains {"path": last.path, "op": "land", "via": c.name, "from": a.path} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	c.name in data.self_protection.changes_last_arg
	count(c.args) > 1
	last := c.args[count(c.args) - 1]
	some i, a in c.args
	i < count(c.args) - 1
}

# `find DIR … -delete` deletes what it finds under DIR (the place itself or inside it; a filter decides the
# rest); `rsync --delete` deletes what the source lacks in the destination, a directory's contents along
_changes contains {"path": a.path, "op": "sweep", "via": "find -delete", "from": ""} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	c.name == "find"
	"-delete" in c.argv
	end := min({i | some i, tok in c.argv; i >= 1; regex.match(`^[-(!]`, tok)} | {count(c.argv)})
	roots := {tok | some i, tok in c.argv; i >= 1; i < end}
	some a in c.args
	a.raw in roots
}

_changes contains {"path": last.path, "op": "delete", "via": "rsync --delete", "from": ""} if {
	input.tool.kind == "shell"
	some c in input.shell.commands
	c.name == "rsync"
	some tok in c.argv
	startswith(tok, "--delete")
	last := c.args[count(c.args) - 1]
}

_shell_op(name) := "delete" if name in data.self_protection.takes_along
else := "write"

_tool_name := input.tool.name if is_string(input.tool.name)
else := "write"

_kept(t) if {
	t.tool
	t.op == "write"
	t.path in input.hookd.keeps
}

# ---------------------------------------------------------------------------------------------
# Does a change hit a protected place?
# ---------------------------------------------------------------------------------------------

_hits(t, q) if t.path == q

_hits(t, q) if startswith(t.path, concat("", [q, "/"]))

# a delete, move or mode change of a directory takes what is inside along
_hits(t, q) if {
	t.op in {"delete", "move", "chmod"}
	startswith(q, concat("", [trim_suffix(t.path, "/"), "/"]))
}

# `find DIR -delete` below the project (or outside it) sweeps what it holds; over the whole project a filter
# (`-name '*.pyc'`) is the ordinary clean-up, judged by the places it names, not the ones it could reach
_hits(t, q) if {
	t.op == "sweep"
	startswith(q, concat("", [trim_suffix(t.path, "/"), "/"]))
	not _holds_project(t.path)
}

_holds_project(p) if p == input.project_dir

_holds_project(p) if startswith(input.project_dir, concat("", [trim_suffix(p, "/"), "/"]))

# a file landed in the directory that holds a protected file of the same name
_hits(t, q) if {
	t.op == "land"
	t.from != ""
	_dir(q) == trim_suffix(t.path, "/")
	_base(q) == _base(t.from)
}

_dir(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if parts := split(p, "/")

_base(p) := parts[count(parts) - 1] if parts := split(p, "/")
