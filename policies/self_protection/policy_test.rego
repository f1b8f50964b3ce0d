# Tests for hookd.self_protection, with inputs in the shape of docs/policies.md. The protected set is given
# here as the daemon would hand it (input.hookd); that the daemon derives it from the agents' modules and
# the config is tested in tests/unit/test_selfprotect.py and, on the real agents, in tests/e2e.
package hookd.self_protection

_t_project := "/home/alice/proj"

_t_protected := [
	{"path": "/home/alice/.gemini/settings.json", "what": "Gemini CLI user hook settings"},
	{"path": "/home/alice/.copilot/hooks", "what": "Copilot CLI user hooks from elsewhere"},
	{"path": "/home/alice/.qwen/settings.json", "what": "Qwen Code user hook settings"},
	{"path": "/home/alice/proj/.hookd/policies", "what": "this project's hookd policy layer"},
	{"path": "/srv/hookd/decisions.log", "what": "hookd's decision log"},
]

_t_base(kind, name) := {
	"client": "gemini",
	"event": "BeforeTool",
	"cwd": _t_project,
	"project_dir": _t_project,
	"tool": {"name": name, "kind": kind, "input": {}},
	"hookd": {"protected": _t_protected, "keeps": []},
}

_t_write(path) := object.union(_t_base("write", "write_file"), {"paths": [{"arg": "file_path", "path": path, "access": "write"}]})

_t_effects(effects) := object.union(_t_base("shell", "run_shell_command"), {"shell": {"commands": []}, "effects": effects})

_t_denied(inp) if {
	some v in deny with input as inp
	v.id == "hookd-self-protection"
}

_t_allowed(inp) if count(deny) == 0 with input as inp

test_file_tool_write_to_agent_settings_denied if {
	_t_denied(_t_write("/home/alice/.gemini/settings.json"))
}

test_file_tool_write_inside_a_protected_directory_denied if {
	_t_denied(_t_write("/home/alice/.copilot/hooks/other.json"))
	_t_denied(_t_write("/home/alice/proj/.hookd/policies/x.rego"))
}

test_edit_judged_to_keep_the_hooks_allowed if {
	inp := object.union(_t_write("/home/alice/.gemini/settings.json"), {"hookd": {"protected": _t_protected, "keeps": ["/home/alice/.gemini/settings.json"]}})
	_t_allowed(inp)
}

test_shell_keeps_is_not_for_shell if {
	# `keeps` is a file tool's judged edit; a shell write to the same file is still denied
	inp := object.union(_t_effects([_t_e("delete", "rm", "/home/alice/.gemini/settings.json")]), {"hookd": {"protected": _t_protected, "keeps": ["/home/alice/.gemini/settings.json"]}})
	_t_denied(inp)
}

_t_e(op, program, path) := {"op": op, "path": path, "to": "", "program": program, "via": "shell"}

test_ordinary_writes_allowed if {
	_t_allowed(_t_write("/home/alice/proj/src/app.py"))
	_t_allowed(_t_write("/home/alice/.gemini/GEMINI.md"))
	_t_allowed(_t_effects([object.union(_t_e("delete", "rm", "/home/alice/proj/build"), {"recursive": true})]))
	_t_allowed(_t_effects([object.union(_t_e("copy", "cp", "/home/alice/.gemini/settings.json"), {"to": "/tmp/backup.json"}), _t_e("write", "cp", "/tmp/backup.json")]))
}

test_shell_writers_denied if {
	_t_denied(_t_effects([_t_e("delete", "rm", "/home/alice/.copilot/hooks/hookd.json")]))
	_t_denied(_t_effects([_t_e("write", "truncate", "/srv/hookd/decisions.log")]))
	_t_denied(_t_effects([_t_e("write", "sed", "/home/alice/.qwen/settings.json")]))
}

test_sweeps_take_what_they_hold if {
	# `find DIR -delete`, `rsync --delete`: a delete of what DIR holds (the protected set holds only the
	# places that exist, or a place's own directory: daemon/hookd/selfprotect.py)
	_t_denied(_t_effects([object.union(_t_e("delete", "find", "/home/alice/.copilot"), {"sweep": true})]))
	_t_denied(_t_effects([object.union(_t_e("delete", "rsync", "/home/alice/proj/.hookd"), {"sweep": true})]))
}

test_sed_without_in_place_allowed if {
	_t_allowed(_t_effects([_t_e("read", "sed", "/home/alice/.qwen/settings.json")]))
}

test_redirect_denied if {
	_t_denied(_t_effects([_t_e("write", "echo", "/home/alice/.qwen/settings.json")]))
}

test_moving_or_deleting_a_directory_that_holds_one_denied if {
	_t_denied(_t_effects([object.union(_t_e("move", "mv", "/home/alice/.gemini"), {"to": "/tmp/g"})]))
	_t_denied(_t_effects([_t_e("delete", "rm", "/home/alice/proj")]))
	_t_denied(_t_effects([_t_e("chmod", "chmod", "/home/alice/.copilot")]))
}

# a mode change that keeps every agent's access (`chmod -R u+w .`), or files given to the caller, changes no guard
test_a_mode_change_that_keeps_access_allowed if {
	_t_allowed(_t_effects([object.union(_t_e("chmod", "chmod", "/home/alice/proj"), {"recursive": true, "keeps_access": true})]))
	_t_allowed(_t_effects([object.union(_t_e("chmod", "chown", "/home/alice/proj"), {"recursive": true, "owner": "caller"})]))
	_t_denied(_t_effects([object.union(_t_e("chmod", "chmod", "/home/alice/proj"), {"recursive": true, "keeps_access": false})]))
	_t_denied(_t_effects([object.union(_t_e("write", "tee", "/home/alice/.qwen/settings.json"), {"keeps_access": true})]))
}

test_copy_of_the_same_name_into_its_directory_denied if {
	_t_denied(_t_effects([object.union(_t_e("copy", "cp", "/tmp/evil/settings.json"), {"to": "/home/alice/.gemini"})]))
	_t_allowed(_t_effects([object.union(_t_e("copy", "cp", "/tmp/notes.md"), {"to": "/home/alice/.gemini"})]))
}

test_effects_every_op_denied if {
	every op in ["write", "delete", "move", "chmod"] {
		_t_denied(_t_effects([{"op": op, "path": "/home/alice/.qwen/settings.json", "to": "", "program": "python3", "via": "shell"}]))
	}
	_t_denied(_t_effects([{"op": "copy", "path": "/tmp/x", "to": "/home/alice/.copilot/hooks/x.json", "program": "cp", "via": "shell"}]))
	_t_denied(_t_effects([{"op": "link", "path": "/tmp/x", "to": "/home/alice/.gemini/settings.json", "program": "ln", "via": "shell"}]))
	_t_denied(_t_effects([{"op": "move", "path": "/home/alice/.gemini/settings.json", "to": "/tmp/x", "program": "mv", "via": "shell"}]))
}

test_effects_reads_and_other_paths_allowed if {
	_t_allowed(_t_effects([{"op": "read", "path": "/home/alice/.qwen/settings.json", "to": "", "program": "cat", "via": "shell"}]))
	_t_allowed(_t_effects([{"op": "copy", "path": "/home/alice/.qwen/settings.json", "to": "/tmp/q.json", "program": "cp", "via": "shell"}]))
	_t_allowed(_t_effects([{"op": "write", "path": "/home/alice/proj/out.txt", "to": "", "program": "python3", "via": "shell"}]))
}

test_no_protected_set_no_opinion if {
	inp := object.remove(_t_write("/home/alice/.gemini/settings.json"), ["hookd"])
	_t_allowed(inp)
}

test_reason_names_the_place if {
	some v in deny with input as _t_write("/home/alice/.gemini/settings.json")
	contains(v.reason, "Gemini CLI user hook settings")
	contains(v.reason, "/home/alice/.gemini/settings.json")
}

test_an_unguarded_nested_agent_start_denied if {
	# the daemon finds the start from the agents' modules (daemon/hookd/dialects/launch.py)
	start := {"program": "opencode", "agent": "OpenCode", "why": "--pure switches hookd's hooks off"}
	inp := object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": [], "starts": [start]}})
	some v in deny with input as inp
	contains(v.reason, "--pure switches hookd's hooks off")
}

test_an_agent_installed_at_a_pinned_release_is_asked_not_denied if {
	# hookd/selfprotect_installs.py: `npm install -g @google/gemini-cli@0.1.9`, `claude install 1.0.20`
	why := "it installs Gemini CLI at @google/gemini-cli@0.1.9, a release hookd cannot tell runs its hooks"
	start := {"program": "npm", "agent": "Gemini CLI", "why": why, "later": true, "pinned": true}
	inp := object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": [], "starts": [start]}})
	some v in ask with input as inp
	v.id == "hookd-self-protection"
	count(deny) == 0 with input as inp
}

test_a_nested_agent_started_as_it_is_allowed if {
	_t_allowed(object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": [], "starts": []}}))
}

_t_asked(inp) if {
	some v in ask with input as inp
	v.id == "hookd-unknown-change"
}

# a protected place handed to a program the catalogue does not know (`guess`): what it does there is unknown
test_a_guessed_path_at_a_protected_place_is_asked if {
	guessed := object.union(_t_e("read", "dasel", "/home/alice/.gemini/settings.json"), {"guess": true, "class": "outside"})
	_t_asked(_t_effects([guessed]))
	holder := object.union(_t_e("read", "bsdtar", "/home/alice/.copilot"), {"guess": true, "class": "outside"})
	_t_asked(_t_effects([holder]))
	elsewhere := object.union(_t_e("read", "dasel", "/home/alice/proj/config/app.toml"), {"guess": true, "class": "project"})
	not _t_asked(_t_effects([elsewhere]))
	home := object.union(_t_e("read", "bash", "/home/alice"), {"guess": true, "class": "home"})
	not _t_asked(_t_effects([home]))
	known := object.union(_t_e("read", "cat", "/home/alice/.gemini/settings.json"), {"class": "outside"})
	not _t_asked(_t_effects([known]))
	staged := object.union(_t_e("read", "git", "/home/alice/.gemini/settings.json"), {"guess": true, "staged": true, "class": "outside"})
	not _t_asked(_t_effects([staged]))
}

# a path built when the call runs, read as the pattern it can be (input.hookd.patterns with its `raw`)
test_a_path_built_at_run_time_hits_what_its_pattern_reaches if {
	built := {"op": "write", "path": "", "raw": "/tmp/hookd-$(id -u)", "known": false, "to": "", "program": "ln", "via": "shell"}
	places := [{"path": "/tmp/hookd-1000", "what": "hookd's runtime directory"}]
	reach := [{"pattern": "/tmp/hookd-*", "place": "/tmp/hookd-1000", "raw": "/tmp/hookd-$(id -u)"}]
	_t_denied(object.union(_t_effects([built]), {"hookd": {"protected": places, "keeps": [], "patterns": reach}}))
	_t_allowed(object.union(_t_effects([built]), {"hookd": {"protected": places, "keeps": [], "patterns": []}}))
}

# holes44: a link or move put in place of a directory that holds a protected place (`ln -sfn DIR ~/.gemini`, `mv -T DIR
# ~/.gemini`, where ~/.gemini is a link: the daemon lists the place through it too) replaces what the agent reads
test_a_link_or_move_in_place_of_what_holds_a_place_denied if {
	_t_denied(_t_effects([{"op": "link", "path": "/tmp/cfg", "to": "/home/alice/.gemini", "program": "ln", "via": "shell"}]))
	_t_denied(_t_effects([{"op": "move", "path": "/tmp/cfg", "to": "/home/alice/.gemini/", "program": "mv", "via": "shell"}]))
}

test_a_link_in_place_of_what_holds_no_place_allowed if {
	_t_allowed(_t_effects([{"op": "link", "path": "/home/alice/dotfiles/nvim", "to": "/home/alice/.config/nvim", "program": "ln", "via": "shell"}]))
	_t_allowed(_t_effects([{"op": "copy", "path": "/tmp/cfg", "to": "/home/alice/.gemini", "program": "cp", "via": "shell"}]))
}

test_a_change_of_the_policy_engine_or_a_stop_of_the_hook_port_is_denied if {
	hit := {"what": "the policy engine hookd decides with", "how": "PUT http://127.0.0.1:8181/v1/policies/x"}
	_t_denied(object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": [], "endpoints": [hit]}}))
	not _t_denied(object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": []}}))
}

test_a_request_to_the_engine_with_a_method_not_known_is_asked if {
	hit := {"what": "the policy engine hookd decides with", "how": "$M http://127.0.0.1:8181/v1/policies/x", "ask": true}
	inp := object.union(_t_effects([]), {"hookd": {"protected": [], "keeps": [], "endpoints": [hit]}})
	not _t_denied(inp)
	some v in ask with input as inp
	v.id == "hookd-self-protection"
}
