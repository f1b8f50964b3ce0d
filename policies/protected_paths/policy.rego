# Protected paths: the agent may not create, modify, move or delete
#   * .env files (.env, .env.local, prod.env; not .env.example/.sample/.template/.dist),
#   * SSH, GnuPG, AWS, gcloud and netrc credentials,
#   * git internals (.git/hooks, .git/config, objects, refs; .gitignore/.gitattributes are fine),
#   (hookd's own files and every agent's hook settings are self_protection's: a set derived at run time,
#   not listed here.)
#
# File tools (kind write/edit) are checked through input.paths (resolved, symlinks followed). Shell
# commands are checked through their effects (input.effects, docs/policies.md "The effect model"): every
# write, delete, mode change, move and link the line makes, by whatever program, redirect or wrapper, is
# judged by its canonical path; no rule here names a writing program. Paths are matched by their shape (a
# `.ssh` segment anywhere), not only under input.home, so sudo, $HOME tricks and other users' homes are
# covered too. Lists live in data.json (data.protected_paths).
#
# Two guard-protection rules that are not about a path live here too: a git configuration key that makes
# git run a program (core.hooksPath, core.fsmonitor, ...: the effect's `executes`) written into a
# repository's .git/config, and a signal or service stop aimed at the hookd process.
#
# Performance (this package runs on every write, edit and shell call; see "Writing fast rules" in
# ../README.md): the package is routed to a shell call only when its effects change a file or send a
# signal, a call tries only the rules of its kind of tool (below), and `_protected` runs one regex
# (quick_pattern) before the ~25 string tests of the lists.
package hookd.protected_paths

# Shell calls only when a rule here can act on them (docs/policies.md, "Routing"): an effect that changes a
# file or sends a signal (whatever program has it), or `hookd` itself.
routing := {
	"events": ["BeforeTool"],
	"kinds": ["write", "edit", "shell", "mcp", "other"],
	"commands": ["hookd"],
	"shell": ["effect-write", "effect-signal"],
}

# The verdicts, by the kind of tool: a rule about the shell's effects is never tried on a file tool's call,
# nor one about a file tool's on a shell call (each rule tried costs regorus a few µs even when its first
# test fails).
deny contains v if {
	input.tool.kind == "shell"
	some v in _shell_deny
}

deny contains v if {
	input.tool.kind != "shell"
	some v in _tool_deny
}

ask contains v if {
	input.tool.kind == "shell"
	some v in _shell_ask
}

ask contains v if {
	input.tool.kind != "shell"
	_tool_more
	some v in _tool_more_ask
}

_tool_deny contains v if {
	_tool_more
	some v in _tool_more_deny
}

# What a file tool's call holds beyond its paths, which the rules of _tool_more_deny and _tool_more_ask judge:
# a tool hookd has no table for, one without path arguments, or an effect that runs code, writes an executing
# git key or cannot be named. A plain write or edit (a known write of each path) tries none of them.
_tool_more if input.tool.kind in {"mcp", "other"}

_tool_more if object.get(input, "paths", []) == []

_tool_more if {
	some e in input.effects
	e.via == "tool"
	true in [object.get(e, "op", "") in {"exec", "signal"}, object.get(e, "known", true) == false, object.get(e, "executes", false) == true]
}

_tool_more if { # a path's other name (a linked dotfile), an `@path` import written into an instruction file, or
	# what a command the call leaves for later changes
	some e in input.effects
	e.via == "tool"
	true in [object.get(e, "alias", "") != "", object.get(e, "import", "") != "", object.get(e, "deferred", false) == true]
}

# ---------------------------------------------------------------------------------------------
# What is written: by file tools (input.paths), and by shell commands (input.effects).
# ---------------------------------------------------------------------------------------------

_tool_deny contains {"id": m.id, "reason": _reason(_tool_name, e.path, m)} if {
	input.tool.kind in {"write", "edit"}
	input.event == "BeforeTool"
	some e in input.paths
	not e.access == "read"
	some m in _protected(e.path)
	not _templated(e.path, m)
	not _plain_ssh_config(e.path, m)
	not _plain_git_config(e.path, m)
}

# A repository's config whose resulting text adds or changes only keys git neither runs, sends to, nor reads a
# file by (`pull.rebase`, `branch.main.merge`, `core.autocrlf`: git.json's plain_keys; the effect model's `plain`,
# daemon/hookd/enrich/gitconfig_plain.py). Any other key added stays denied.
_plain_git_config(p, m) if {
	m.id == "git-internals"
	endswith(p, "/config")
	some w in input.effects
	w.op == "write"
	w.path == p
	object.get(w, "plain", "") == "git_config"
}

# An SSH client configuration whose whole resulting text only says how to connect (Host blocks, HostName, User,
# IdentityFile, ProxyJump, keep-alives; no ProxyCommand, LocalCommand, Match exec, Include, agent forwarding,
# weakened host key checks): the effect model's `plain` (daemon/hookd/enrich/ssh_config.py). Keys stay denied.
_plain_ssh_config(p, m) if {
	m.id == "ssh-dir"
	endswith(p, "/.ssh/config")
	some w in input.effects
	w.op == "write"
	w.path == p
	object.get(w, "plain", "") == "ssh_config"
}

# A new .env whose text only fills in the names its template (`.env.example`) lists, none a variable that runs
# code: the effect model's `template` (daemon/hookd/enrich/env_template.py), judged as `cp .env.example .env` is.
# Or a write whose every line added or taken sets a variable the web framework publishes in the browser's copy of
# the app (`VITE_API_URL`, `NEXT_PUBLIC_SITE_URL`: the effect model's `public`): no secret is lost or added.
_templated(p, m) if {
	m.id == "env-file"
	some w in input.effects
	w.op == "write"
	w.path == p
	_filled_in(w)
}

_filled_in(w) if object.get(w, "template", "") != ""

_filled_in(w) if object.get(w, "public", false) == true

# What a file or patch tool does that its path arguments do not show, behind one gate (a plain write or
# edit has none): a change found in a patch in an argument of a tool whose arguments hookd does not know
# (Droid's ApplyPatch), commands written into a file a shell or session runs at start, and a change under
# another name of its file (`alias`: `~/dotfiles/ssh/x` is `~/.ssh/x` where that is a link to it, a `.git`
# file's directory is the project's `.git`; daemon/hookd/enrich/aliases.py), and what a command written into a
# configuration for later changes (`deferred`: an MCP server's command appending to `authorized_keys`).
_tool_extra := [e |
	input.tool.kind in {"write", "edit", "mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	true in [e.op in {"exec", "signal"}, object.get(input, "paths", []) == [], object.get(e, "alias", "") != "", object.get(e, "import", "") != "", object.get(e, "deferred", false) == true] # else judged above
]

# A signal left in a file for a later program to send (a git or husky hook, a makefile's recipe, a package's
# script: later_code's deferred signal effects) is judged as the same signal sent now: one that stops the guard
_tool_more_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some e in _tool_extra
	e.op == "signal"
	_signals_guard(e)
	reason := sprintf("%s leaves %s %q for later: it would stop, limit or attach to hookd, the guard of this session", [_tool_name, e.program, e.target])
}

# An `@path` import written into a file an agent loads into every session's context (CLAUDE.md, GEMINI.md,
# AGENTS.md, a memory tool's file: the effect model's `import`, daemon/hookd/enrich/tool_effects.py) of a key,
# credential or .env file: it reaches the model in every later session, outside the hooks. (Judged here, where
# writes are routed, on the places whose keys and credentials this package keeps; secret_reads judges a
# memory tool's import as the read it is.)
_tool_more_deny contains {"id": m.id, "reason": reason} if {
	some e in _tool_extra
	e.op == "read"
	object.get(e, "import", "") != ""
	some m in _protected(e.path)
	m.id in {"ssh-dir", "cloud-credentials", "env-file"}
	reason := sprintf("%s writes an import of %s into a file the agent loads every session: %s must not reach the model", [_tool_name, e.path, m.what])
}

# ... or of a file the effect model found holding a credential (`holds`, daemon/hookd/enrich/holdings.py: a gh
# token, an npm token, a kube config's user token), whatever its name: a custom command's `@{path}` or the file its
# `!{cat …}` line reads goes into the prompt each time the command runs, as an import does.
_tool_more_deny contains {"id": "credentials-file", "reason": reason} if {
	some e in _tool_extra
	e.op == "read"
	object.get(e, "import", "") != ""
	object.get(e, "holds", "") == "credential"
	reason := sprintf("%s writes an import of %s into a file the agent loads: it holds a credential, which must not reach the model", [_tool_name, e.path])
}

_tool_more_deny contains {"id": m.id, "reason": _reason(_tool_name, e.path, m)} if {
	some e in _tool_extra
	e.op in {"write", "delete", "move"}
	e.path != ""
	some m in _protected(e.path)
	not _templated(e.path, m)
}

# A tool hookd has no table for (an MCP server's `write_file`, `move_file`, `delete`): judged on the effects
# its path arguments have (daemon/hookd/enrich/tool_args.py).
_tool_more_deny contains {"id": m.id, "reason": _reason(_tool_name, e.path, m)} if {
	input.tool.kind in {"mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op in {"write", "delete", "move"}
	e.path != ""
	some m in _protected(e.path)
	not _templated(e.path, m)
}

# A file, patch or MCP tool writing into a git configuration file (`~/.gitconfig`, a repository's `config`) a
# key whose value git runs (`core.fsmonitor`, `alias.x = !…`; git.json's executing keys): as `git config`
# through the shell is judged (daemon/hookd/enrich/gitconfig_text.py).
_tool_more_deny contains {"id": "git-internals", "reason": reason} if {
	input.tool.kind in {"write", "edit", "mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op == "write"
	object.get(e, "executes", false) == true
	reason := sprintf("%s writes %s = %q into %s, a key that makes git run a program; it is blocked", [_tool_name, object.get(e, "key", "?"), object.get(e, "value", ""), e.path])
}

# `~/.bashrc`, `~/.profile`, `/etc/profile.d/`, and what the system runs or trusts later (`/etc/sudoers.d/`,
# `/etc/ld.so.preload`, cron's tables, a `.pth` file: the effect model's `startup` exec): outside the hooks; asked. (A text that only sets variables, `export PATH=…`, has no such effect, unless a variable
# is read as code or takes programs from scratch space: `LD_PRELOAD`, `PATH=/tmp/x:$PATH`, the catalogue's
# `environment` and `search_paths`.)
_tool_more_ask contains {"id": "startup-file", "reason": reason} if {
	some e in _tool_extra
	e.op == "exec"
	object.get(e, "startup", "") != ""
	reason := _startup_reason(e)
}

_startup_reason(e) := sprintf("%s writes %s: %s (outside hookd's view); confirm it", [_tool_name, e.startup, e.when]) if {
	is_string(e.when)
} else := sprintf("%s writes into %s, which a shell, a session or the system runs or trusts later (outside hookd's view); confirm it", [_tool_name, e.startup])

# Code a file tool's write leaves for another program to run that hookd cannot read: a git configuration whose
# resulting text cannot be judged whole (an edit of a file hookd cannot read, a move or copy onto it, a patch,
# a tool hookd has no table for: `config` on the effect). Asked, as the shell's unknown code is.
_tool_more_ask contains {"id": "unknown-code", "reason": reason} if {
	some e in _tool_extra
	e.op == "exec"
	e.known == false
	object.get(e, "startup", "") == "" # asked above
	reason := sprintf("%s writes %s: %s runs code from it hookd cannot see before it runs; review it", [_tool_name, object.get(e, "config", "a file"), e.program])
}

# What every command of the line changes, from its effects (docs/policies.md, "The effect model"): a write,
# delete, mode change, the source of a move, either end of a link (writing through it later writes its
# target), by any program the catalogue knows, a redirect, `find -delete`, `dd of=`, `cp -t DIR`, `sed -i`,
# a patch applied through the shell; whatever wraps it. (The destination of a copy, move or link is its own
# `write` effect.) Behind one gate: a line that changes nothing (ls, npm test) never tries the rules.
_changes := [e |
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some e in input.effects
	e.op in {"write", "delete", "chmod", "move", "link"}
]

_shell_deny contains {"id": m.id, "reason": _reason(_via(e), e.path, m)} if {
	count(_changes) > 0
	some e in _changes
	e.path != ""
	not _plain_setting(e)
	some m in _protected(e.path)
	not _from_template(e, m)
	not _made_private(e)
	not _host_keys_recorded(e, m)
}

# `ssh-keyscan HOST >> ~/.ssh/known_hosts`: the keys a host serves, recorded as its first connection would record
# them (the effect model's `text_of`: the writer's output is host keys). known_hosts says which servers this machine
# trusts; it grants no one access to it (authorized_keys does, and stays protected whatever is written there).
_host_keys_recorded(e, m) if {
	m.id == "ssh-dir"
	e.op == "write"
	endswith(e.path, "/.ssh/known_hosts")
	object.get(e, "text_of", "") == "host_keys"
}

# `chmod 600 ~/.ssh/id_ed25519`, `chmod 700 ~/.ssh`, `chmod go-rwx .env`: a mode that leaves the owner able to read
# and gives no one else anything (the effect's `tightens`) makes a secret store private, as OpenSSH requires;
# nothing more can read it. Any other mode (`644` on a key, `-R`), and any mode of git's internals (a hook's
# execute bit decides whether it runs), is still a change.
_made_private(e) if {
	e.op == "chmod"
	object.get(e, "tightens", false) == true
	not contains(e.path, "/.git")
}

# `cp .env.example .env`: a .env made by copying its template (a name with an example word, never a secret)
# writes what the project ships for everyone to see; it reads no secret. Judged by what flows where: the
# write is the destination of a copy whose source is such a template the line did not write itself. Any other
# source (`cp /tmp/x .env`), a redirect, a move, a file tool's text: still a write of the .env file.
_from_template(e, m) if _templated(e.path, m)

_from_template(e, m) if {
	m.id == "env-file"
	object.get(e, "target_of", "") == "copy"
	some c in input.effects
	c.op == "copy"
	c.to == e.path
	parts := split(c.path, "/")
	_example(parts[count(parts) - 1])
	[1 | some w in input.effects; w.op == "write"; w.path == c.path] == []
}

# `git config user.email …` writes .git/config with a key that runs nothing (or a pager, editor or credential
# helper git ships: `core.pager cat`, git.json's plain_values): the rule below judges the key.
_plain_setting(e) if {
	object.get(e, "key", "") != ""
	not _runs_later(e)
}

_runs_later(e) if object.get(e, "executes", false) == true

# A git configuration key that makes git run a program (git.json's executing keys: core.hooksPath,
# core.fsmonitor, filter.*, …), written into any git configuration (the repository's, --global, a clone's).
_shell_deny contains {"id": "git-internals", "reason": reason} if {
	count(_changes) > 0
	some e in _changes
	_runs_later(e)
	reason := sprintf("git config %s is blocked: it makes git run another program (%q) from %s", [e.key, object.get(e, "value", ""), e.path])
}

_via(e) := sprintf("%s (%s)", [e.program, e.op])

# A change whose target is built when the shell runs (`cp k "$D/authorized_keys"`, `echo x >> ~/.ss$(…)/…`)
# and whose fixed part may lie anywhere but the project or scratch space: it may reach any path above, so
# it is asked (unknown_writes in data.json: "ask", or "allow").
_shell_ask contains {"id": "unknown-write", "reason": reason} if {
	count(_changes) > 0
	data.protected_paths.unknown_writes == "ask"
	some e in _changes
	e.known == false
	object.get(e, "fixed", "elsewhere") == "elsewhere"
	not _links_a_program(e)
	reason := sprintf("%s %s %q, whose place is only known when the shell runs: it could be a protected path; confirm it", [e.program, _verb[e.op], object.get(e, "raw", "")])
}

# A whole tree written into the home itself (`tar -x -C ~`, `unzip -d ~`, `cd ~ && cpio -i`, `ar x`, `pax -r`): the
# names written come from the archive or the source tree, never from the line, so any startup file, key or agent
# setting of the home may be replaced (a tree written below the home is judged by the place it names, above;
# self_protection leaves the home to this rule). A directory above the home (class `home` too: `tar -C /tmp` when
# the home is a throw-away one below it) holds the home only by a member's long name, as any system directory does.
_shell_ask contains {"id": "tree-over-home", "reason": reason} if {
	count(_changes) > 0
	some e in _changes
	e.op == "write"
	e.recursive == true
	e.class == "home"
	e.path == trim_suffix(input.home, "/")
	not object.get(e, "listed", false) # an archive on disk whose members were read: each is a write of its own
	reason := sprintf("%s writes a whole tree into %s: the names it writes are not on the line, and any startup file, key or agent setting there may be replaced; review what it holds first", [e.program, e.path])
}

# The same by a tool hookd has no table for (an MCP server's `extract_all` to `~`: enrich/tool_nesting.py marks the
# write of a directory by a tool whose name says it unpacks as a whole tree written there).
_tool_more_ask contains {"id": "tree-over-home", "reason": reason} if {
	input.tool.kind in {"mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op == "write"
	object.get(e, "recursive", false) == true
	e.path == trim_suffix(input.home, "/")
	reason := sprintf("%s writes a whole tree into %s: the names it writes come from the archive, and any startup file, key or agent setting there may be replaced; review what it holds first", [_tool_name, e.path])
}

# `ln -s "$(which poetry)" ~/.local/bin/poetry@local`: a link to what a search-path lookup finds (`installed`) points
# at an installed program, never at a key, a credential store or a repository's internals, and nothing is written
# there; a write, delete, move or mode change of it (replacing the program) is still asked above.
_links_a_program(e) if {
	e.op == "link"
	object.get(e, "installed", "") != ""
}

_verb := {"write": "writes", "delete": "deletes", "chmod": "changes the mode of", "move": "moves", "link": "links"}

# Stopping the guard: a signal (kill, pkill, killall, a service manager's stop) whose target names hookd,
# or a pattern that matches its name (`pkill 'hoo[k]d'`), by any program the catalogue knows to send one.
_shell_deny contains {"id": "hookd-tamper", "reason": reason} if {
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some e in input.effects
	e.op == "signal"
	_signals_guard(e)
	reason := sprintf("%s %q is blocked: it would stop, limit or attach to hookd, the guard of this session", [e.program, e.target])
}

# (`named`: the target with each path below the project as the project names it, `./.dev-server.pid`: the
# directories the project sits in name no process; the reason shows the target as spelled)
_signals_guard(e) if {
	some name in data.protected_paths.guard_process_names
	contains(lower(object.get(e, "named", e.target)), name)
}

# a PID looked up when the shell runs (`kill $(pgrep -f hookd)`, `pgrep hookd | xargs kill`, `prlimit --pid
# "$(pidof hookd)"`, `systemctl show -p MainPID --value hookd`): the lookup's operands name the process
_signals_guard(e) if {
	some word in object.get(e, "lookup", [])
	some name in data.protected_paths.guard_process_names
	contains(lower(word), name)
}

_signals_guard(e) if {
	some word in object.get(e, "lookup", [])
	regex.is_valid(word)
	some name in array.concat(data.protected_paths.guard_process_names, data.protected_paths.guard_command_lines)
	regex.match(word, name)
}

# a PID given as a number (learnt in an earlier call: `kill -STOP 4242`, `strace -p 4242`): what runs under
# it now, or under one of its ancestors (the daemon's workers and evaluators), is the guard
_signals_guard(e) if {
	some name in object.get(e, "running", [])
	lower(name) in {lower(n) | some n in data.protected_paths.guard_process_names}
}

# a signal to every process of one name (`killall python3`): the daemon runs as its interpreter
# (`python3 -I -m hookd serve`, docs/service.md), so the kernel names its process after the interpreter
# (guard_interpreter_names: the names a CPython interpreter runs under)
_signals_guard(e) if {
	e.match == "name"
	some pattern in data.protected_paths.guard_interpreter_names
	glob.match(pattern, [], lower(e.target))
}

# a PID looked up through the guard's socket (docs/service.md: `$XDG_RUNTIME_DIR/hookd/hook.sock`; guard_sockets):
# the process a socket listing (`ss -xlp | grep hook.sock`, `lsof -t …/hook.sock`) finds holding it is the daemon
_signals_guard(e) if {
	some word in object.get(e, "lookup", [])
	some socket in data.protected_paths.guard_sockets
	true in [word == socket, endswith(word, concat("", ["/", socket]))]
}

# a unit that holds the guard's (guard_units_holding: the root slice, app.slice where a user manager puts its
# services, user.slice and user-UID.slice above it, the user manager's own user@UID.service; systemd.special(7),
# user@.service(5)): stopping, freezing or limiting it (`set-property app.slice CPUQuota=1%`) does so to hookd.service
_signals_guard(e) if {
	e.match == "unit"
	some pattern in data.protected_paths.guard_units_holding
	glob.match(pattern, [], lower(e.target))
}

# a signal to every process the caller may signal (`kill -9 -1`, killall5): the guard is one of them
_signals_guard(e) if e.match == "all"

# a pattern (pkill, killall -r) matched against the guard's name or its command line (`pkill -f` matches
# the whole command line, `python3 -m hookd serve`; guard_command_lines in data.json)
_signals_guard(e) if {
	e.match == "regex"
	regex.is_valid(e.target)
	some name in array.concat(data.protected_paths.guard_process_names, data.protected_paths.guard_command_lines)
	regex.match(e.target, name)
}

# A package manager removing hookd's own package (`pip uninstall hookd`, `pipx uninstall`, `uv pip uninstall`:
# the effect model's `delete` with `what: "package"` and its `name`, whatever program has it), or installing into
# its environment (`pipx inject hookd X`, `pipx runpip hookd install X`: a `write` of the package by name): code
# the daemon would import.
_shell_deny contains {"id": "hookd-tamper", "reason": reason} if {
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some e in input.effects
	e.op in {"delete", "write"}
	object.get(e, "what", "") == "package"
	lower(replace(object.get(e, "name", ""), "_", "-")) in {lower(n) | some n in data.protected_paths.guard_process_names}
	reason := sprintf("%s %s the %q package is blocked: it would change hookd, the guard of this session", [e.program, _package_verb[e.op], e.name])
}

_package_verb := {"delete": "removing", "write": "installing into"}

# `hookd uninstall` (or `hookd install --remove`-like forms): the agent taking its own guard away.
_shell_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in input.shell.commands
	c.name == "hookd"
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some tok in c.argv
	tok in {"uninstall", "stop", "--remove"}
	reason := sprintf("%q is blocked: it would remove or stop hookd, the guard of this session", [concat(" ", c.argv)])
}

# hookd's units written again from a configuration the line names (`hookd --config F service install`,
# `HOOKD_CONFIG=F hookd service install`): the daemon the service manager starts next reads F, whatever the
# protected config says (docs/service.md: the units are computed from the config install is given).
_shell_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in input.shell.commands
	c.name == "hookd"
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	_names_config(c)
	_installs(c)
	reason := sprintf("%q is blocked: it would install hookd, the guard of this session, from another configuration (its units or the agents' hook commands)", [concat(" ", c.argv)])
}

# A daemon the line starts on policies of its own (`hookd serve --policies DIR`, `--config F`, `HOOKD_CONFIG=F`)
# where the shims look for the guard (docs/control.md: its sockets go to `--runtime-dir`, else the config's
# runtime directory, the guard's): the next hook asks the agent's policies (docs/install.md, `hookd serve
# [--policies DIR] [--runtime-dir DIR]`). One given a runtime directory of the project or scratch space is a daemon
# of its own, as the project's tests start.
_shell_deny contains {"id": "hookd-tamper", "reason": reason} if {
	some c in input.shell.commands
	c.name == "hookd"
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	_subcommand(c) == "serve"
	_own_policies(c)
	not _own_runtime_dir(c)
	reason := sprintf("%q is blocked: it would start a hookd daemon on other policies where the agents' hooks look for their guard", [concat(" ", c.argv)])
}

_own_policies(c) if {
	some tok in c.argv
	startswith(tok, "--policies")
}

_own_policies(c) if _names_config(c)

_own_runtime_dir(c) if {
	some k in numbers.range(1, count(c.argv) - 2)
	c.argv[k] == "--runtime-dir"
	_ordinary_dir(c, c.argv[k + 1])
}

_own_runtime_dir(c) if {
	some tok in c.argv
	startswith(tok, "--runtime-dir=")
	_ordinary_dir(c, substring(tok, count("--runtime-dir="), -1))
}

_ordinary_dir(c, value) if {
	some a in c.args
	a.raw == value
	a.class in {"project", "scratch"}
}

_installs(c) if {
	some k in numbers.range(0, count(c.argv) - 2)
	[c.argv[k], c.argv[k + 1]] == ["service", "install"]
}

# `hookd [--config F] install`: the agents' hook commands written from F (its runtime directory's socket, its fail
# modes, its shim: docs/install.md), so every later hook asks whatever listens where F says
_installs(c) if _subcommand(c) == "install"

_subcommand(c) := c.argv[3] if {
	count(c.argv) > 3
	c.argv[1] == "--config"
} else := c.argv[2] if {
	count(c.argv) > 2
	startswith(c.argv[1], "--config=")
} else := c.argv[1] if count(c.argv) > 1

_names_config(c) if {
	some tok in c.argv
	startswith(tok, "--config")
}

# the variable set for the command, or earlier on the line (`export HOOKD_CONFIG=F; …`)
_names_config(c) if object.get(c.env, "HOOKD_CONFIG", null) != null

_names_config(_) if {
	some a in input.shell.commands
	some tok in a.argv
	startswith(tok, "HOOKD_CONFIG=")
}

# A patch whose files hookd cannot know (read from a pipe, from a file it cannot read; a patch tool whose
# patch is in no argument hookd reads): it may write any path above, so it is asked.
_shell_ask contains {"id": "unknown-patch", "reason": reason} if {
	some c in input.shell.commands
	c.patch.known == false
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	reason := sprintf("%s applies a patch whose files hookd cannot read: it could write a protected path; review it first", [concat(" ", c.wrappers)])
}

_tool_more_ask contains {"id": "unknown-patch", "reason": reason} if {
	input.tool.kind in {"write", "edit"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.known == false
	e.op != "read"
	reason := sprintf("%s writes files hookd cannot name: it could write a protected path; review it first", [_tool_name])
}

# A tool hookd has no table for (an MCP server's file tool) whose path argument holds what hookd cannot
# resolve: it may change any path above, so it is asked (unknown_writes in data.json: "ask", or "allow").
_tool_more_ask contains {"id": "unknown-write", "reason": reason} if {
	data.protected_paths.unknown_writes == "ask"
	input.tool.kind in {"mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op in {"write", "delete", "move"}
	e.known == false
	reason := sprintf("%s changes a file whose name hookd cannot resolve from its arguments: it could be a protected path; confirm it", [_tool_name])
}

_reason(via, path, m) := sprintf("%s on %s is blocked: %s is protected from the agent", [via, path, m.what])

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "write"

# ---------------------------------------------------------------------------------------------
# What is protected: a set of {"id", "what"} (normally one)
# ---------------------------------------------------------------------------------------------

# Every match contains a text that one regex finds at once (a literal alternation compiles in no
# time): data.json's quick_pattern for the lists (test_quick_pattern checks that every segment,
# file suffix, prefix and pattern prefix contains a match of it; "" turns the shortcut off), and
# `/.git`, `.env` for the rules that are not lists. An ordinary path costs
# that one regex instead of some 25 string tests. Behind it, a segment is looked for with contains
# before the exact segment test, and a pattern runs its regex only under its literal `prefix`.
# (the pattern built inline: a rule holding it costs a file tool's single path ~10 µs more than the concat;
# and the lists and the built-in rules are one function, the lists behind quick_pattern's regex and each
# built-in rule behind its own contains/startswith: a function call costs regorus 2-4 µs, a regex ~3)
_protected(p) := (((({m |
	lists # the lists' regex matched
	some e in data.protected_paths.segments
	contains(p, e.segment)
	_has_segment(p, e.segment)
	m := {"id": e.id, "what": e.what}
} | {m |
	lists
	some e in data.protected_paths.files
	endswith(p, e.suffix)
	m := {"id": e.id, "what": e.what}
}) | {m |
	lists
	some e in data.protected_paths.prefixes
	startswith(p, e.prefix)
	m := {"id": e.id, "what": e.what}
}) | {m |
	lists
	some e in data.protected_paths.patterns
	startswith(p, object.get(e, "prefix", "")) # cheap gate for the regex
	regex.match(e.regex, p)
	m := {"id": e.id, "what": e.what}
}) | {m |
	# the built-in rules, each behind the text its match needs (which the gate's regex looks for)
	contains(p, "/.git")
	_has_segment(p, "/.git")
	not _git_pattern_list(p)
	m := {"id": "git-internals", "what": "git's internal directory (hooks, config, objects, refs)"}
}) | {m |
	contains(p, ".env")
	parts := split(p, "/") # an .env file (not .env.example), the test written out
	b := parts[count(parts) - 1]
	true in [b == ".env", startswith(b, ".env."), endswith(b, ".env")] # any of
	not _example(b)
	m := {"id": "env-file", "what": "an environment secrets file (.env)"}
} if {
	regex.match(concat("|", [data.protected_paths.quick_pattern, `/\.git|\.env`]), p)
	lists := regex.match(data.protected_paths.quick_pattern, p)
} else := set()

# A file of the git directory that only lists name patterns git matches untracked files against (`info/exclude`:
# data.protected_paths.git_pattern_lists): git runs nothing from it and keeps no history in it
_git_pattern_list(p) if {
	some e in data.protected_paths.git_pattern_lists
	endswith(p, e.suffix)
}

# `/.ssh` matches /home/a/.ssh and /home/a/.ssh/id_rsa, not /home/a/.sshrc
_has_segment(p, seg) if endswith(p, seg)

_has_segment(p, seg) if contains(p, concat("", [seg, "/"]))

_example(b) if {
	some w in split(lower(b), ".")
	w in data.protected_paths.env_example_words
}
