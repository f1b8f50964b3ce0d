# Self-protection: no agent may change what decides whether or how hookd decides. The protected places are
# not listed here: the daemon derives them at run time from every registered agent's tamper surface (its
# hook settings in every scope, the files whose switches turn hooks off, its trust entries, the places that
# bring in an overriding hook) and from the running config (hookd's config, policy directories, project
# layers, bundles, decision log, runtime dir, units, shims, the installed package), and hands them to every
# call that can change a file as input.hookd.protected (daemon/hookd/selfprotect.py).
#
# What a call changes comes from input.effects (every op that writes, deletes, moves, links or changes a
# mode, whatever program, redirect or wrapper has it; no rule here names a program) and from a file tool's
# input.paths. A place is hit when
# the change is the place or inside it, when a delete, move or mode change takes a directory that holds it,
# and when a copy, move or link lands a file of the same name in the directory that holds it.
#
# A file tool's write or edit of an agent's settings that its module judged to leave hookd's hooks, their
# switches and trust as they were (input.hookd.keeps: an MCP server or a permission added) goes through, as
# an input.paths write or as a tool's write effect; so does a shell line's in-place edit whose text the daemon
# computed (daemon/hookd/selfprotect_edits.py), every other shell write never.
package hookd.self_protection

# Every verdict below iterates input.hookd.protected, input.hookd.starts or input.hookd.endpoints: with all empty (a call whose
# paths are near no protected place and that starts no agent) the package is not evaluated at all.
routing := {
	"events": ["BeforeTool"],
	"kinds": ["write", "edit", "shell", "mcp", "other", "web"],
	"facts": ["hookd.protected", "hookd.starts", "hookd.endpoints"],
}

# One reason per changed path and place, naming every way the call changes it (`sed -i` read from the
# arguments and sed's write effect are one change, told once).
deny contains {"id": "hookd-self-protection", "reason": reason} if {
	some [path, what] in _hit
	vias := concat(", ", sort({t.via | some t in _changes; t.path == path; not _kept(t)}))
	reason := sprintf("%s on %s is blocked: it is %s, and changing it would change how hookd guards this session", [vias, path, what])
}

# A request that changes the policies or data of the OPA server hookd decides with (`curl -X PUT
# …:8181/v1/policies/x`, a PATCH or DELETE of /v1/data), or a signal to what holds hookd's HTTP hook port (`fuser -k
# 8765/tcp`): the daemon finds them from its config and the call's effects (daemon/hookd/selfprotect_config.py).
deny contains {"id": "hookd-self-protection", "reason": reason} if {
	some hit in input.hookd.endpoints
	not hit.ask
	reason := sprintf("%s is blocked: it reaches %s, and would change or stop how hookd guards this session", [hit.how, hit.what])
}

# The same request with a method or a server built when the line runs, or a method that is none of HTTP's known
# ones (`curl -X "$M" …:8181/v1/policies/x`): what it does to the engine cannot be known here.
ask contains {"id": "hookd-self-protection", "reason": reason} if {
	some hit in input.hookd.endpoints
	hit.ask
	reason := sprintf("%s is asked: it may reach %s, and could change how hookd guards this session", [hit.how, hit.what])
}

# A nested agent started with hookd's hooks switched off, or with the settings that hold them moved away,
# would run unguarded: the daemon finds such starts from what each agent's module declares (a variable
# that switches hooks off, an option that does, a config home moved) and hands them as input.hookd.starts
# (daemon/hookd/dialects/launch.py). An agent started as it is, hooks on, fires hookd's hooks: allowed.
deny contains {"id": "hookd-self-protection", "reason": reason} if {
	some start in input.hookd.starts
	not start.later
	reason := sprintf("starting %s (%s) this way is blocked: %s, so it would run without hookd guarding it; start it without that switch", [start.program, start.agent, start.why])
}

# The same switch left in a file every later shell or session reads (`export CLAUDE_CODE_SIMPLE=1` in ~/.zshenv,
# environment.d): each later start of the agent would run unguarded.
deny contains {"id": "hookd-self-protection", "reason": reason} if {
	some start in input.hookd.starts
	start.later
	not start.pinned
	reason := sprintf("this write of %s is blocked: every later %s would start with it (%s), without hookd guarding it", [start.program, start.agent, start.why])
}

# The agent's own program replaced by a release the line pins (`npm install -g @google/gemini-cli@0.1.9`,
# `claude install 1.0.20`): a release from before the agent's hooks runs none of hookd's, and the line does not
# say which it is (hookd/selfprotect_installs.py). A dist-tag or an update along the release line passes.
ask contains {"id": "hookd-self-protection", "reason": reason} if {
	some start in input.hookd.starts
	start.pinned
	reason := sprintf("%s is asked: %s; every later session would start that release", [start.program, start.why])
}

# A protected place handed to a program the catalogue does not know (the effect model's `guess`): what the
# program does with it cannot be known, and many such tools rewrite the file they are given in place
# (`crudini --set F …`, `patchelf --add-needed L F`, `dasel put -f F`, `python -m zipfile -e Z DIR`).
ask contains {"id": "hookd-unknown-change", "reason": reason} if {
	some e in input.effects
	object.get(e, "guess", false) == true
	e.path != ""
	not e.class in {"project-root", "home", "root"} # a whole home or project is left to the rules about them
	not object.get(e, "selected", false) # what a search selected (`$(find . -name '*.rs')`): those files, not the tree
	not object.get(e, "staged", false) # `git add F`: git reads F into its index, a known read that changes nothing
	some place in input.hookd.protected
	_names_place(e.path, place.path)
	reason := sprintf("%s is handed %s, which is %s; hookd does not know what %s does with it (it may rewrite it): review it first", [e.program, e.path, place.what, e.program])
}

# a path that is the place, inside it, or a directory holding it (a pattern's reach is the effect model's to say)
_names_place(path, q) if path == q

_names_place(path, q) if startswith(path, concat("", [q, "/"]))

_names_place(path, q) if startswith(q, concat("", [trim_suffix(path, "/"), "/"]))

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
	not _keeps_access(e)
}

# A mode change that leaves the owner able to read and enter, and gives no one else write (`chmod -R u+w .`,
# `755`: the effect's `keeps_access`), or an owner change that gives the files to the user the line runs as
# (`sudo chown -R "$USER" .`: `owner: caller`), changes nothing of how hookd guards: every agent still reads its
# settings, and who may write them is judged by the rules on writes. `000`, `a-r`, `777` and `o+w` still hit.
_keeps_access(e) if {
	e.op == "chmod"
	object.get(e, "keeps_access", false) == true
}

_keeps_access(e) if {
	e.op == "chmod"
	object.get(e, "owner", "") == "caller"
}

# A directory written whole (`tar x -C DIR`, `unzip -d DIR`, `rsync … DIR/`): every file below it may be
# written; the project root and the home are left to the rules about what lands there.
_changes contains {"path": e.path, "op": "write-below", "via": _via(e), "from": "", "tool": false} if {
	some e in input.effects
	e.op == "write"
	e.recursive == true
	e.path != ""
	not e.class in {"project-root", "home", "root"}
}

# a change of a path built when the call runs (`ln -sfn x "/tmp/hookd-$(id -u)"`): the pattern of the paths it can be
# (input.hookd.patterns with the path as the line spells it, daemon/hookd/selfprotect.py)
_changes contains {"path": reach.pattern, "op": "write", "via": _via(e), "from": "", "tool": false} if {
	some e in input.effects
	e.path == ""
	some reach in input.hookd.patterns
	reach.raw == e.raw
}

_changes contains {"path": e.to, "op": "land", "via": _via(e), "from": e.path} if {
	some e in input.effects
	e.op in {"move", "copy", "link"}
	e.to != ""
}

# a link or a move put in place of what holds a protected place (`ln -sfn DIR ~/.claude`, `mv -T DIR ~/.claude` where
# ~/.claude is a link: input.hookd.protected names the place through it too): what the agent reads there is DIR's
_changes contains {"path": e.to, "op": "replace", "via": _via(e), "from": e.path} if {
	some e in input.effects
	e.op in {"move", "link"}
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

_tool_name := input.tool.name if is_string(input.tool.name)

else := "write"

_kept(t) if {
	t.tool
	t.op == "write"
	t.path in input.hookd.keeps
}

# a shell line's in-place edit whose text the daemon computed and judged by the file's keys (selfprotect_edits.py:
# `sed -i 's/a/b/' F`, `yq -i '.k = "v"' F`, `jq … F > T && mv T F`): the write, and the move that lands the new text
_kept(t) if {
	input.tool.kind == "shell"
	t.op in {"write", "write-below", "land", "replace"}
	t.path in input.hookd.keeps
}

# ---------------------------------------------------------------------------------------------
# Does a change hit a protected place?
# ---------------------------------------------------------------------------------------------

_hits(t, q) if t.path == q

_hits(t, q) if startswith(t.path, concat("", [q, "/"]))

# a change named by a pattern of paths (`find ~/.local/state -name 'decisions.log*' -exec truncate -s 0 {} +`):
# each place it can reach, the place or a path inside it (input.hookd.patterns, daemon/hookd/selfprotect.py)
_hits(t, q) if {
	some reach in input.hookd.patterns
	reach.pattern == t.path
	reach.place == q
}

# a delete, move or mode change of a directory takes what is inside along
_hits(t, q) if {
	t.op in {"delete", "move", "chmod", "write-below"}
	startswith(q, concat("", [trim_suffix(t.path, "/"), "/"]))
}

_hits(t, q) if {
	t.op == "replace"
	startswith(q, concat("", [trim_suffix(t.path, "/"), "/"]))
}

# a file landed in the directory that holds a protected file of the same name
_hits(t, q) if {
	t.op == "land"
	t.from != ""
	_dir(q) == trim_suffix(t.path, "/")
	_base(q) == _base(t.from)
}

_dir(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if parts := split(p, "/")

_base(p) := parts[count(parts) - 1] if parts := split(p, "/")
