# Destructive shell commands: recursive deletes outside the project, force-pushes to protected
# branches, commands that throw uncommitted or untracked work away, remote scripts run unseen, privilege
# escalation, raw disk writes, power-off and fork bombs. See policies/README.md for the rule ids.
#
# What a line does is judged on input.effects (docs/policies.md, "The effect model"): which program deletes,
# throws work away (git's `discards` in git.json), writes a device, powers off, raises privileges or runs
# downloaded code, or what inline code in another language does, is the effect catalogue's data
# (daemon/hookd/enrich/effects/data), never a name here (tests/unit/enrich/test_policies_judge_effects.py).
# Never the tool name: the same rules hold for every agent's shell tool.
#
# Decisions worth knowing:
# * a privilege is `ask` (hookd turns ask into deny in headless sessions); what a privileged command
#   destroys (a delete, mode change, device, signal, a write outside the project, …) is `deny`.
# * a delete of untracked directories or ignored files (`git clean -f` with -d/-x/-X) is `deny` (work
#   that git cannot give back); of untracked files alone (`git clean -f`) `ask`. A dry run has no effect.
# * a recursive delete whose target is built at run time is `ask`: its value is not known when the
#   policy runs (`deny` when the fixed part is already outside the project).
# * a parser failure is `ask` (unparsable-shell): it must never pass silently.
#
# Performance (this package runs on every shell call it is routed; see "Writing fast rules" in
# ../README.md): every rule body and every rule consulted costs an evaluation in regorus, even when the
# first line fails. So the effect rules sit behind one gate per verdict on the set of the line's effect
# ops (_effect_ops, computed once), and regexes, functions and sprintf come after the cheapest test.
package hookd.destructive_shell

# Evaluated only for the shell calls a rule here can act on (docs/policies.md, "Routing"): an effect of
# interest (a write, delete or mode change, work thrown away, unknown code or a flow, code built at run time,
# inline code hookd cannot follow, a device, a privilege, an executing config key, a signal), or a `{` in the
# text (the fork bomb); and always when the command line could not be parsed. A redirect, a wrapper or inline
# code are judged by their effects too: `git status`, `ls`, `npm test 2>&1`, `timeout 60 pytest`,
# `awk '{print $1}' f` are not evaluated at all.
routing := {
	"events": ["BeforeTool"],
	"kinds": ["shell", "mcp", "other"],
	"shell": ["effect-write", "effect-unknown", "effect-device", "effect-privilege", "effect-config", "effect-signal", "effect-fork"],
	"text": ["{"],
}

_cfg := data.destructive_shell

_shell if {
	input.event == "BeforeTool"
	input.tool.kind == "shell"
}

# ---------------------------------------------------------------------------------------------
# Parser failures
# ---------------------------------------------------------------------------------------------

ask contains {"id": "unparsable-shell", "reason": reason} if {
	input.shell.parse_error == true
	_shell
	reason := sprintf("hookd could not parse this shell command (%s); review it before it runs", [_parse_error_text])
}

ask contains {"id": "unparsable-shell", "reason": "hookd received no parsed form of this shell command; review it before it runs"} if {
	not input.shell.parse_error == true
	not is_array(object.get(input, ["shell", "commands"], null)) # `not is_array(input.x)` is false in OPA when input.x is undefined
	_shell
}

_parse_error_text := input.shell.error if {
	is_string(input.shell.error)
	input.shell.error != ""
} else := "unknown parse error"

# ---------------------------------------------------------------------------------------------
# Generic helpers
# ---------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------
# Recursive deletes and mode changes (input.effects)
# ---------------------------------------------------------------------------------------------

# What a delete or mode change hits is judged on its effect, whatever program does it (rm, find -delete,
# rsync --delete, a launcher's or an interpreter's rm, unlink through an array of flags): `recursive`, and
# the path `class` hookd.enrich.facts gives its tree (root, home, system, project-root, outside, unresolved,
# project, scratch). The id and wording of each class are one table.
_rm_classes := {
	"root": {"id": "rm-rf-root", "what": "the filesystem root"},
	"home": {"id": "rm-rf-home", "what": "your home directory"},
	"system": {"id": "rm-rf-system", "what": "a system directory"},
	"project-root": {"id": "rm-rf-project-root", "what": "the whole project directory"},
	"outside": {"id": "rm-rf-outside-project", "what": "a path outside the project"},
}

# The recursive deletes and mode changes of the line, computed once (a sweep, a delete of what a program's
# tests select below a root, is judged on its own below).
_recursive_deletes := [e |
	some e in input.effects
	e.op == "delete"
	e.recursive == true
	not _selected(e)
	not e.what
]

# the deletes of work a program throws away (`what`: uncommitted changes, untracked files, a remote branch's
# commits), judged by what is lost below, not as the files' trees
_lost := [e |
	some e in input.effects
	e.op == "delete"
	is_string(e.what)
]

# a delete of what a search or a listing selects below a root: find -delete, rsync --delete (`sweep`), the names
# `xargs` reads from a listing (`from_stdin`); a command run on each match (`find -exec rm {}`, `selected`) is
# judged both ways, its own recursive flag as written
_selected(e) if e.sweep == true

_selected(e) if e.from_stdin == true

_swept(e) if _selected(e)

_swept(e) if e.selected == true

_files_deny contains {"id": k.id, "reason": reason} if {
	some e in _recursive_deletes
	k := _rm_classes[e.class]
	reason := sprintf("recursive delete of %s (%s) is blocked: it cannot be undone; delete only inside the project", [k.what, _effect_place(e)])
}

# The target is only known when the shell runs it (`rm -rf "$DIR"`): asked (denied above as well when its fixed
# part is already outside the project).
_files_ask contains {"id": "rm-rf-unresolved", "reason": reason} if {
	some e in _recursive_deletes
	e.known == false
	reason := sprintf("recursive delete of %q depends on a shell variable or substitution whose value hookd cannot see; confirm the target", [e.raw])
}

# `cd "$DIR" && rm -rf *`: after a cd to a place hookd cannot follow, a relative path names nothing it can judge
# (`after_cd`); after one it follows (`cd / && rm -rf build`) the path is placed and judged by its class above.
_files_deny contains {"id": "rm-rf-after-cd", "reason": reason} if {
	some e in _recursive_deletes
	e.after_cd == true
	reason := sprintf("recursive delete of relative path %q after changing directory out of the project is blocked: hookd cannot tell what it would delete", [e.raw])
}

# A sweep (`find ROOT … -delete`, `find ROOT -exec rm {} +`, `rsync --delete`, `find ROOT | xargs rm`): what a
# search selects below a root outside the project is deleted (scratch space below /tmp is not, as for rm -rf).
_files_deny contains {"id": "find-delete-outside-project", "reason": reason} if {
	some e in input.effects
	e.op == "delete"
	_swept(e)
	not e.class in {"project", "project-root", "scratch"}
	reason := sprintf("deleting what a search selects under %s (outside the project) is blocked: it deletes files recursively", [_effect_place(e)])
}

# One file of the home lost: deleted or emptied, not recursively (`rm ~/notes.txt`, `: > ~/thesis.md`, `dd
# if=/dev/zero of=F`, `mv -f empty F`, `fallocate --punch-hole`): outside the project and its caches no repository
# holds it to bring it back. `holds: false` when the effect model sees nothing of before to lose (a link, an empty
# file, a directory, a file the line made itself). Asked, not denied: one file, which the user may mean to drop.
_files_ask contains {"id": "home-file-lost", "reason": reason} if {
	some e in input.effects
	e.op == "delete"
	not e.recursive == true
	not _swept(e)
	not e.what
	e.class == "outside"
	startswith(e.path, concat("", [trim_suffix(input.home, "/"), "/"]))
	object.get(e, "holds", true) == true
	reason := sprintf("%s of %s (outside the project) loses its content: no repository holds it to restore; confirm it", [_lost_verb(e), _effect_place(e)])
}

_lost_verb(e) := "emptying" if e.emptied == true

else := "deleting"

_files_deny contains {"id": "recursive-chmod-system", "reason": reason} if {
	some e in input.effects
	e.op == "chmod"
	e.recursive == true
	e.class in {"root", "home", "system"}
	reason := sprintf("recursive %s of %s (%s) is blocked: it breaks permissions system-wide", [e.program, _rm_classes[e.class].what, _effect_place(e)])
}

# One system file's mode or owner changed (`chmod 777 /etc/shadow`, `chmod o+w /etc/passwd`, `chmod 600 /etc/passwd`,
# `chown "$USER" /etc/sudoers`): secrets opened to everyone, accounts or sudo rules open to change, the system's
# own reads refused; an agent running as root does it without sudo. A mode that leaves the owner its access and gives
# no one else write (`chmod +x /usr/local/bin/kubectl`, `755`: the effect's `keeps_access`) changes none of that.
_files_deny contains {"id": "chmod-system", "reason": reason} if {
	some e in input.effects
	e.op == "chmod"
	not e.recursive == true
	e.class in {"root", "home", "system"}
	not object.get(e, "keeps_access", false) == true
	reason := sprintf("%s of %s is blocked: it opens or breaks a file the system relies on", [e.program, _effect_place(e)])
}

# A tool hookd has no table for deleting a directory (an MCP server's `delete_directory`, `remove`): as a
# recursive delete by the shell (daemon/hookd/enrich/tool_args.py). Work a command line of the tool throws away
# (`what`: a git server's `git_reset` with `mode: hard`, enrich/cli_tools.py) is judged as that work, below.
deny contains {"id": k.id, "reason": reason} if {
	input.event == "BeforeTool"
	input.tool.kind in {"mcp", "other"}
	some e in input.effects
	e.via == "tool"
	e.op == "delete"
	e.recursive == true
	not e.what
	k := _rm_classes[e.class]
	reason := sprintf("%s deletes %s (%s) with everything in it: it cannot be undone; delete only inside the project", [input.tool.name, k.what, e.path])
}

# A tool hookd has no table for deleting a hosted resource with everything in it (S3's `delete_bucket` with
# `force`, daemon/hookd/enrich/hosted_deletes.py), or running a line that deletes one through a forge's API: asked,
# as `gh api -X DELETE` is through the agent's shell.
ask contains {"id": "remote-resource-delete", "reason": reason} if {
	_untabled_tool
	some e in input.effects
	e.op == "delete"
	object.get(e, "what", "") == "hosted"
	reason := sprintf("%s deletes %q on a hosted service with what it holds; it is gone for everyone: confirm it", [input.tool.name, e.name])
}

# A tool hookd has no table for that runs a command line (an MCP server's `start_process`, `run_command`: its
# line's effects are the tool's, daemon/hookd/enrich/tool_effects.py) running code that line downloads or
# decodes first (`curl … | sh`, `base64 -d … | bash`): as through the agent's shell.
deny contains {"id": "download-then-exec", "reason": reason} if {
	input.event == "BeforeTool"
	input.tool.kind in {"mcp", "other"}
	some e in input.effects
	e.via == "tool"
	e.op == "exec"
	object.get(e, "flow", "") in {"fetch", "decode"}
	reason := sprintf("%s runs code its command line %s first; fetch it, review it, then run it separately", [input.tool.name, _flow_words[e.flow]])
}

# the pattern a glob's match came from, the path otherwise: one reason per operand as written
_effect_place(e) := e.glob if {
	is_string(e.glob)
} else := e.path if {
	e.path != ""
} else := e.raw

# ---------------------------------------------------------------------------------------------
# Work thrown away for good (a `delete` effect with `what`: the effect model's git.json `discards`)
# ---------------------------------------------------------------------------------------------

# What is lost, by `what`: uncommitted changes of the whole tree the command works in (`whole`; `head`: the
# branch is set to another commit too), untracked files (asked), untracked directories or ignored files
# (denied: new work, .env, local config), a protected remote branch's commits (a forced update) or the
# branch itself, the local history a rewrite prunes (asked). Changes of named files are not judged here (their
# paths are, by protected_paths).
_lost_deny contains {"id": "git-reset-hard", "reason": reason} if {
	some e in _lost
	e.what == "uncommitted"
	e.whole == true
	e.head == true
	reason := sprintf("this %s command is blocked: it sets the branch to another commit and throws away every uncommitted change for good; commit or stash them, or restore named files", [e.program])
}

_lost_deny contains {"id": "git-discard-changes", "reason": reason} if {
	some e in _lost
	e.what == "uncommitted"
	e.whole == true
	not e.head == true
	reason := sprintf("this %s command is blocked: it throws away every uncommitted change under %s; commit or stash first, or name the files", [e.program, _effect_place(e)])
}

_lost_deny contains {"id": "git-clean-force", "reason": reason} if {
	some e in _lost
	e.what in {"untracked-trees", "ignored"}
	reason := sprintf("deleting %s files under %s is blocked: they are new work, .env or local config that %s cannot restore; list them with a dry run first", [_lost_words[e.what], _effect_place(e), e.program])
}

_lost_words := {"untracked-trees": "untracked directories and", "ignored": "ignored"}

_lost_ask contains {"id": "git-clean-force", "reason": reason} if {
	some e in _lost
	e.what == "untracked"
	reason := sprintf("%s deletes untracked files under %s that it cannot restore; confirm, or list them with a dry run first", [e.program, _effect_place(e)])
}

# a backup repository pruned down to its newest archive or its last day (`borg prune --keep-within 1H`, `restic
# forget --keep-last 1 --prune`: the effect model's `what: "backups"`, from programs.json `retention`): the backups
# of before are gone, and with them any recovery of what was lost since; asked
_lost_ask contains {"id": "backup-history-pruned", "reason": reason} if {
	some e in _lost
	e.what == "backups"
	reason := sprintf("this %s command prunes the backups of %s down to the newest or the last day's: the history before is gone; confirm it, or keep more (--keep-daily, --keep-weekly) or try --dry-run", [e.program, _backup_place(e)])
}

# stashes dropped by names known only at run time (`git stash list --format=%gd | xargs -n1 git stash drop`, a loop
# over the listing): any stash, every one where the drop repeats, as `git stash clear` would; asked (a named
# older stash dropped is not judged, as a deleted branch is not)
_lost_ask contains {"id": "git-stashes-dropped", "reason": reason} if {
	some e in _lost
	e.what == "stashes"
	reason := sprintf("this %s command drops stashes named only when it runs (a listing, a loop, xargs): every saved change in them may be lost for good; confirm it, or name the stash", [e.program])
}

_backup_place(e) := e.name if e.name != ""

else := "its repository"

# every commit rewritten, the reflog expired and the old objects pruned (`git filter-repo --force`): the history
# before is gone from this repository; asked (a fresh clone's history is still on its remote)
_lost_ask contains {"id": "git-rewrite-history", "reason": reason} if {
	some e in _lost
	e.what == "rewritten"
	reason := sprintf("this %s command rewrites every commit and prunes the history it replaces; confirm it, or run it on a fresh clone", [e.program])
}

# every reflog entry expired (`git reflog expire --expire=now --all`): the commits a reset, a rebase or a deleted
# branch left behind are reachable from nothing, and the next gc deletes them for good; asked
_lost_ask contains {"id": "git-expire-reflog", "reason": reason} if {
	some e in _lost
	e.what == "expired"
	reason := sprintf("this %s command expires every reflog entry: the commits only the reflog still reaches (after a reset, a rebase, a deleted branch) can no longer be restored; confirm it", [e.program])
}

_lost_deny contains {"id": "force-push-protected", "reason": reason} if {
	some e in _lost
	e.what == "history"
	_protected_branch(e.ref)
	reason := sprintf("a forced update of %s on %s is blocked: it rewrites shared history; push to a feature branch instead", [_branch_words(e.ref), _remote_words(e)])
}

_lost_deny contains {"id": "push-delete-protected", "reason": reason} if {
	some e in _lost
	e.what == "branch"
	_protected_branch(e.ref)
	reason := sprintf("deleting %s on %s is blocked", [_branch_words(e.ref), _remote_words(e)])
}

# a remote branch deleted or force-updated whose name is known only when the line runs (`"$b"`, a name xargs
# reads from a listing, a substitution): it may be a protected one; asked
_lost_ask contains {"id": "remote-ref-at-run-time", "reason": reason} if {
	some e in _lost
	e.what in {"branch", "history"}
	contains(e.ref, "$")
	reason := sprintf("%s %s a branch on %s whose name (%s) is known only when the line runs: it may be a protected branch; confirm, or name the branch", [e.program, _ref_verbs[e.what], _remote_words(e), e.ref])
}

_ref_verbs := {"branch": "deletes", "history": "force-updates"}

# `""` is the current branch (which may well be main), `*` every branch
_protected_branch(b) if b in _cfg.protected_branches

_protected_branch(b) if {
	some p in _cfg.protected_branch_prefixes
	startswith(b, p)
}

_protected_branch(b) if b in {"", "*"}

_branch_words(b) := "every branch" if {
	b == "*"
} else := "the current branch (no branch named: it may be main)" if {
	b == ""
} else := sprintf("protected branch %q", [b])

_remote_words(e) := e.url if {
	is_string(e.url)
	e.url != ""
} else := "the remote"

# ---------------------------------------------------------------------------------------------
# Disks and devices
# ---------------------------------------------------------------------------------------------

_benign_device(p) if p in _cfg.benign_devices

_benign_device(p) if {
	some prefix in _cfg.benign_device_prefixes
	startswith(p, prefix)
}

# is_string first: a redirect's path is null for `>&2`, and a built-in given null is an error in
# regorus (the whole decision fails) where OPA only finds the rule undefined (docs/policies.md, "Engine gaps").
_device(p) if {
	is_string(p)
	startswith(p, "/dev/")
	not _benign_device(p)
}

# ---------------------------------------------------------------------------------------------
# Whole-system hazards
# ---------------------------------------------------------------------------------------------

# :(){ :|:& };:  and  bomb() { bomb | bomb & }; bomb
_squeezed := regex.replace(input.shell.source, `\s+`, "")

# (each name defined once in a set: a search of the whole command per definition made 15,000
# `a(){` in a quoted 60 KB argument cost 0.19 s; and only the text around pipes is searched, only
# when a pipe has a name on both sides: 8,000 distinct names cost 0.1 s)
_fork_bomb if {
	_piped_names != ""
	some name in _defined_functions
	_self_pipe(name)
}

# `L|R` for every pipe with a name character on both sides, L and R the runs of name characters
# around it, a line each: `n|n` is in the command iff it is in here (n holds no `|` and no newline).
# The i-th left run and the i-th right run belong to the i-th pipe.
_piped_names := concat("\n", [concat("", [left, substring(right, 1, -1)]) |
	rights := regex.find_all_string_submatch_n(`\|[A-Za-z0-9_:.-]*`, _squeezed, -1)
	some i, l in regex.find_all_string_submatch_n(`[A-Za-z0-9_:.-]*\|`, _squeezed, -1)
	left := l[0]
	right := rights[i][0]
	count(left) > 1
	count(right) > 1
])

# A name is defined where it starts a word (the line's start, a blank or an operator before it), so that a
# reserved word before it (`then :(){ …`, `do b() { …`) is not read as part of the name.
_defined_functions contains m[1] if {
	some m in regex.find_all_string_submatch_n(`(?:^|[\s;&|(){}])([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*\(\s*\)\s*\{`, input.shell.source, -1)
}

_defined_functions contains m[1] if {
	some m in regex.find_all_string_submatch_n(`(?:^|[\s;&|(){}])function\s+([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*(?:\(\s*\))?\s*\{`, input.shell.source, -1)
}

_self_pipe(name) if contains(_piped_names, concat("", [name, "|", name]))

_fork_bomb_verdict := {"id": "fork-bomb", "reason": "this command defines a function that pipes into itself (a fork bomb); it would exhaust the machine's processes"}

# The same, judged on what the line does (`op: fork`, docs/policies.md): the function is found wherever the line
# runs shell code, however it spells, prints or decodes it (`bash <(printf …)`, `eval`, `echo … | sh`); the text
# rule above still holds a line that does not parse
deny contains _fork_bomb_verdict if {
	"fork" in _effect_ops
}

deny contains _fork_bomb_verdict if {
	# cheap gate: both patterns need a `{` and a `|` (whitespace aside) before any regex runs
	contains(input.shell.source, "{")
	contains(input.shell.source, "|")
	_shell
	_fork_bomb
}

# ---------------------------------------------------------------------------------------------
# The effect model (input.effects, docs/policies.md "The effect model"): what the line does, whatever
# program does it. The rules above judge commands by name; these judge effects, so that a launcher, an
# option holding a command, git configuration or a file the line wrote and then ran reach the same end.
# Routed by the `effect-*` traits (routing.shell); each rule first tests the set of ops, computed once.
# ---------------------------------------------------------------------------------------------

_effect_ops := {e.op | some e in input.effects} if _shell

# The rules below sit behind one gate each for deny and ask: a line without exec, device, privilege or
# write effects never tries them (every rule body tried costs regorus a few µs). A write or a delete alone
# (`> out.txt`, `rm -rf build`) tries only _write_delete_deny's rules: a new rule that can fire on a write or
# delete effect without exec, device, signal or privilege ones belongs there, not in _effect_deny.
deny contains v if {
	count(_effect_ops & {"exec", "device", "signal", "privilege"}) > 0
	some v in _effect_deny
}

deny contains v if {
	count(_effect_ops & {"write", "delete"}) > 0
	some v in _write_delete_deny
}

deny contains v if {
	count(_effect_ops & {"delete", "chmod"}) > 0
	some v in _files_deny
}

deny contains v if {
	"delete" in _effect_ops
	count(_lost) > 0 # a plain rm never tries the rules of work thrown away
	some v in _lost_deny
}

ask contains v if {
	"delete" in _effect_ops
	some v in _files_ask
}

ask contains v if {
	"delete" in _effect_ops
	count(_lost) > 0
	some v in _lost_ask
}

ask contains v if {
	count(_effect_ops & {"exec", "privilege", "write"}) > 0
	some v in _effect_ask
}

# Work thrown away by the command line of a tool hookd has no table for (a git server's `git_reset` with `mode:
# hard`, `git_clean`, `git_push` with `force`: its line's effects are the tool's, daemon/hookd/enrich/cli_tools.py):
# as through the agent's shell.
deny contains v if {
	_untabled_tool
	count(_lost) > 0
	some v in _lost_deny
}

ask contains v if {
	_untabled_tool
	count(_lost) > 0
	some v in _lost_ask
}

_untabled_tool if {
	input.event == "BeforeTool"
	input.tool.kind in {"mcp", "other"}
}

# Code the line runs that it downloaded or decoded first (`curl -o x && sh x`, `nc host | sh`, a script of a
# repository it just cloned, a downloaded file on a program's stdin: `bash < x.sh`, `sqlite3 db < x.sql`): the
# intent is clear. Every `through` but those the rule below names is this rule's (a value no rule named, `file`,
# was a miss: neither rule nor unknown-code matched it).
_effect_deny contains {"id": "download-then-exec", "reason": reason} if {
	"exec" in _effect_ops
	some e in input.effects
	e.op == "exec"
	object.get(e, "flow", "") in {"fetch", "decode"}
	not object.get(e, "through", "") in object.keys(_through_ids)
	reason := sprintf("%s runs code this command line %s first (%s); fetch it, review it, then run it separately", [e.program, _flow_words[e.flow], _effect_target(e)])
}

_flow_words := {"fetch": "downloaded", "decode": "decoded"}

# The same code reaching the program that runs it straight away: through its standard input (`curl … | sh`,
# `nc host 80 | sh`, `base64 -d … | bash`, a filter between them) or through a substitution that is the
# program or its script (`bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(curl …)"`, `source <(wget -qO- …)`):
# `through` on the exec effect, whatever the programs.
_effect_deny contains {"id": _through_ids[e.through][e.flow], "reason": reason} if {
	"exec" in _effect_ops
	some e in input.effects
	e.op == "exec"
	e.flow in {"fetch", "decode"}
	is_string(e.through)
	reason := sprintf("%s runs code %s through %s, unseen; %s it to a file and review it first", [e.program, _flow_words[e.flow], _through_words[e.through], _flow_verbs[e.flow]])
}

_through_ids := {
	"stdin": {"fetch": "pipe-to-shell", "decode": "decoded-pipe-to-shell"},
	"substitution": {"fetch": "remote-script-exec", "decode": "decoded-pipe-to-shell"},
}

_through_words := {"stdin": "its standard input", "substitution": "a substitution"}

_flow_verbs := {"fetch": "download", "decode": "decode"}

# What runs is built when the shell runs it (`built`): a program word made by a substitution or a variable
# not set on the line (`$(echo rm) -rf ~`, `${SHELL:-bash} -c …`), shell code handed as an expansion
# (`eval "$x"`, `sh -c "$x"`), a script named by one (`source "$F"`); variables set earlier on the line are
# followed first.
_effect_ask contains {"id": "dynamic-command", "reason": reason} if {
	"exec" in _effect_ops
	some e in input.effects
	e.op == "exec"
	e.built == true
	reason := sprintf("what %s runs (%s) is only known when the shell runs it; review it before it runs", [e.program, _unknown_what(e)])
}

# Code in another language run inline (`awk`, `perl -e`, `python -c`, `sqlite3 db .shell`, a here-document to an
# interpreter: an exec whose code has a language other than the shell's and a text) that does what hookd cannot
# follow: the effect model reads the commands it runs as literals as commands of their own, and marks the rest
# (files written or deleted, sockets, code built at run time, a language it has no table for) `known: false`
# (languages.json); asked.
_effect_ask contains {"id": "inline-code", "reason": reason} if {
	"exec" in _effect_ops
	some e in input.effects
	_inline_unknown(e)
	reason := sprintf("%s code run inline (%s) does things hookd cannot follow; review it before it runs", [e.code.lang, e.program])
}

_inline_unknown(e) if {
	e.op == "exec"
	e.known == false
	e.code.lang != "sh"
	e.code.text != ""
}

# Code that cannot be known before it runs otherwise: a shell's stdin from another program's output, a
# process substitution, a file the line wrote otherwise, git's hooks path moved, `--exec-path`: asked
# (unknown_code in data.json: "ask", or "allow" to turn it off).
_effect_ask contains {"id": "unknown-code", "reason": reason} if {
	"exec" in _effect_ops
	_cfg.unknown_code == "ask"
	some e in input.effects
	e.op == "exec"
	e.known == false
	not object.get(e, "flow", "") in {"fetch", "decode"}
	not e.deferred == true
	not e.built == true
	not _inline_unknown(e)
	reason := sprintf("%s runs code hookd cannot see before it runs (%s); review it", [e.program, _unknown_what(e)])
}

_unknown_what(e) := sprintf("from %s", [e.flow]) if {
	is_string(e.flow)
} else := _effect_target(e)

_effect_target(e) := e.raw if {
	is_string(e.raw)
} else := e.code.text if {
	e.code.text != ""
} else := "its standard input"

# A device formatted, erased or overwritten by any program the catalogue knows takes one (mkfs*, mke2fs,
# wipefs, hdparm, sgdisk, …) or by a write onto /dev: a block device, or one hookd cannot name.
_write_delete_deny contains {"id": "raw-device-write", "reason": reason} if {
	some e in input.effects
	e.op in {"write", "delete"}
	_device(e.path)
	reason := sprintf("%s onto device %s is blocked: it overwrites the disk directly", [e.program, e.path])
}

# The machine powered off or rebooted (a `signal` to every process, `match: power`: shutdown, systemctl
# poweroff, init 0, … as the catalogue has them)
_effect_deny contains {"id": "system-power", "reason": reason} if {
	some e in input.effects
	e.op == "signal"
	e.match == "power"
	reason := sprintf("%s is blocked: it shuts down or reboots the machine", [e.program])
}

_effect_deny contains {"id": "disk-format", "reason": reason} if {
	"device" in _effect_ops
	some e in input.effects
	e.op == "device"
	e.program != "shell"
	object.get(e, "block", false) == true
	not _benign_device(e.path)
	reason := sprintf("%s on %s is blocked: it formats or wipes disks and partitions", [e.program, _effect_target(e)])
}

# A hosted repository deleted (`gh repo delete`, `glab repo delete`: the effect model's `delete` with
# `what: "repository"`): its history, issues and releases go with it.
_write_delete_deny contains {"id": "remote-repo-delete", "reason": reason} if {
	"delete" in _effect_ops
	some e in input.effects
	e.op == "delete"
	object.get(e, "what", "") == "repository"
	reason := sprintf("%s deleting the repository %s is blocked: its history, issues and releases are lost with it", [e.program, _repo_name(e)])
}

# Another hosted resource deleted (`what: "hosted"`): through a forge's REST API (`gh api -X DELETE
# repos/o/r/git/refs/heads/main`, `curl -X DELETE https://api.github.com/…`: a branch, release, issue or key
# gone), or a hosted store with everything in it (`aws s3 rb --force`, `kubectl delete namespace`, an MCP tool's
# `delete_bucket`); asked.
_files_ask contains {"id": "remote-resource-delete", "reason": reason} if {
	"delete" in _effect_ops
	some e in input.effects
	e.op == "delete"
	object.get(e, "what", "") == "hosted"
	reason := sprintf("%s deletes %q %s; it is gone for everyone: confirm it", [e.program, e.name, _hosted_where(e)])
}

# Where a hosted delete happens, by what it takes: a store goes with everything in it (`recursive`:
# effects/hosted_stores.py, enrich/hosted_deletes.py); a forge API's DELETE removes one resource
# (entries.rest_deletes).
_hosted_where(e) := "with everything in it on the hosted service it manages" if {
	object.get(e, "recursive", false) == true
} else := "on a code forge through its API"

_repo_name(e) := sprintf("%q", [e.name]) if {
	e.name != ""
} else := "of this directory"

# Commands scheduled to run later, outside this session's hooks (`deferred`: at, batch, crontab as the
# catalogue has them); their text, when the line shows it, is judged as itself too.
_effect_ask contains {"id": "deferred-exec", "reason": reason} if {
	"exec" in _effect_ops
	some e in input.effects
	e.op == "exec"
	e.deferred == true
	reason := _deferred_reason(e)
}

_deferred_reason(e) := sprintf("%s writes %s: %s, outside the guard's view; review it", [e.program, e.startup, e.when]) if {
	is_string(e.when)
} else := sprintf("%s schedules commands to run later, outside the guard's view; review it", [e.program])

# Privileges (sudo, doas, sudoedit, pkexec, run0, su, ksu, …: `privilege` in the catalogue, as a program or
# as a wrapper): asked. Not the distribution's packages installed from the configured sources (`installs:
# packages`: `sudo apt-get install -y gcc`, package_installs.json); what else the line does is judged as itself.
_effect_ask contains {"id": "sudo", "reason": reason} if {
	"privilege" in _effect_ops
	not _only_given_back
	some e in input.effects
	e.op == "privilege"
	object.get(e, "grants", "") == ""
	object.get(e, "installs", "") == ""
	reason := sprintf("%s runs with elevated privileges (sudo, doas, su, …); confirm it", [e.program])
}

# A privilege given to a file (`grants`): a set-user-ID mode (`chmod u+s`, `install -m 4755`),
# capabilities (`setcap cap_setuid+ep`): whoever runs it later gets them. Asked. Not capabilities that open no way
# to root (`escalates: false`: `setcap cap_net_bind_service=+ep ./server`, a dev server on port 443).
_effect_ask contains {"id": "privilege-granted", "reason": reason} if {
	"privilege" in _effect_ops
	some e in input.effects
	e.op == "privilege"
	object.get(e, "grants", "") != ""
	object.get(e, "escalates", true) != false
	reason := sprintf("%s gives %s %s: whoever runs it gets those privileges; confirm it", [e.program, _effect_target(e), _grants[e.grants]])
}

_grants := {"setuid": "the set-user-ID bit", "capabilities": "capabilities"}

# What a command run with privileges destroys or takes over (`privileged`): a delete, a mode or owner change,
# a move or link, a device, a signal, a write outside the project, commands scheduled for later.
_effect_deny contains {"id": "sudo-destructive", "reason": reason} if {
	"privilege" in _effect_ops
	some e in input.effects
	e.privileged == true
	_destroys(e)
	reason := sprintf("%s as root is blocked: a destructive command with sudo/doas can damage the whole system", [e.program])
}

_destroys(e) if e.op in {"move", "link", "device", "signal"}

_destroys(e) if {
	e.op == "chmod"
	not _given_back(e)
}

# Files given back to the user the line runs as (`sudo chown -R "$USER" .` after a root build or container left
# them root-owned: `owner: caller`), in the project or scratch space (canonical paths: a link's target): nothing
# is taken over, and a line whose only privileged changes are these is not asked for its `sudo` either.
_given_back(e) if {
	e.owner == "caller"
	e.class in {"project", "project-root", "scratch"}
}

# A project's own program given capabilities that open no way to root (`sudo setcap cap_net_bind_service=+ep
# ./target/release/server`): its `sudo` is not asked either, as a file given back.
_given_back(e) if {
	e.op == "privilege"
	e.grants == "capabilities"
	e.escalates == false
	e.class in {"project", "scratch"}
}

_only_given_back if {
	some e in input.effects
	_given_back(e)
	every f in input.effects {
		_given_back_or_unprivileged(f)
	}
}

# the privilege of the command that gives back (`sudo chown`), not of another one on the line (`&& sudo bash`)
_given_back_or_unprivileged(f) if {
	f.op == "privilege"
	object.get(f, "grants", "") == ""
	some g in input.effects
	_given_back(g)
	g.program == f.program
}

_given_back_or_unprivileged(f) if _given_back(f)

_given_back_or_unprivileged(f) if not f.privileged

_destroys(e) if {
	e.op == "delete"
	object.get(e, "what", "") != "package" # `sudo pip uninstall x`: asked as sudo, not a loss of data
}

_destroys(e) if {
	e.op == "write"
	not e.class in {"project", "scratch"}
}

_destroys(e) if e.deferred == true

# A configuration key that runs a command, written for later (`git config core.fsmonitor …`, a clone's
# `-c core.sshCommand=…`): what it runs is judged as itself too; writing it is asked.
_effect_ask contains {"id": "exec-config", "reason": reason} if {
	"write" in _effect_ops
	some e in input.effects
	e.op == "write"
	object.get(e, "executes", false) == true
	reason := sprintf("%s sets %s, which runs a command later (%q); review it", [e.program, e.key, object.get(e, "value", "")])
}
