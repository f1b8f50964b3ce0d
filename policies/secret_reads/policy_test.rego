# Tests for hookd.secret_reads, with inputs in the shape of docs/policies.md.
package hookd.secret_reads

# ---------------------------------------------------------------------------------------------
# Test-input builders (package-local: regorus cannot mock across packages)
# ---------------------------------------------------------------------------------------------

_t_home := "/home/alice"

_t_project := "/home/alice/proj"

_t_in_project(p) if p == _t_project

_t_in_project(p) if startswith(p, concat("", [_t_project, "/"]))

_t_resolve(tok) := tok if startswith(tok, "/")

_t_resolve(tok) := concat("/", [_t_project, trim_prefix(tok, "./")]) if not startswith(tok, "/")

_t_arg(tok) := {"raw": tok, "path": p, "in_project": true} if {
	p := _t_resolve(tok)
	_t_in_project(p)
} else := {"raw": tok, "path": _t_resolve(tok), "in_project": false}

_t_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

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

_t_redirect(cmd, op, target) := object.union(cmd, {"redirects": [{
	"op": op,
	"target": target,
	"path": _t_arg(target).path,
	"in_project": _t_arg(target).in_project,
}]})

_t_base := {
	"client": "gemini",
	"event": "BeforeTool",
	"session": {"id": "s1", "transcript_path": ""},
	"cwd": _t_project,
	"project_dir": _t_project,
	"caller": {"uid": 1000, "pid": 4242},
	"home": _t_home,
}

_t_shell(source, cmds) := object.union(_t_base, {
	"tool": {"name": "run_shell_command", "kind": "shell", "input": {"command": source}},
	"shell": {"source": source, "parse_error": false, "error": null, "commands": cmds},
	"raw": {"tool_name": "run_shell_command", "tool_input": {"command": source}},
})

_t_simple(argv) := _t_shell(concat(" ", argv), [_t_cmd(argv)])

_t_file(kind, tool, arg, raw, path) := object.union(_t_base, {
	"tool": {"name": tool, "kind": kind, "input": {arg: raw}},
	"paths": [{"arg": arg, "raw": raw, "path": path, "in_project": _t_arg(path).in_project, "access": _t_access(kind)}],
	"raw": {"tool_name": tool, "tool_input": {arg: raw}},
})

_t_access("read") := "read"

_t_access(kind) := "write" if kind != "read"

_t_read(path) := _t_file("read", "read_file", "file_path", path, path)

_t_deny(inp) := {v.id | some v in d} if d := deny with input as inp

_t_allowed(inp) if count(_t_deny(inp)) == 0

# ---------------------------------------------------------------------------------------------
# routing
# ---------------------------------------------------------------------------------------------

test_routing if {
	routing == {"events": ["BeforeTool"], "kinds": ["read", "shell", "mcp", "other", "web"], "shell": ["effect-read", "effect-unknown"]}
}

test_write_tool_is_not_a_read if {
	_t_allowed(_t_file("write", "write_file", "file_path", ".env", "/home/alice/proj/.env"))
}

test_after_tool_ignored if {
	_t_allowed(object.union(_t_read("/home/alice/proj/.env"), {"event": "AfterTool"}))
}

# ---------------------------------------------------------------------------------------------
# file tools
# ---------------------------------------------------------------------------------------------

test_read_env if {
	_t_deny(_t_read("/home/alice/proj/.env")) == {"env-file"}
}

test_read_env_variants if {
	every p in ["/home/alice/proj/.env.local", "/home/alice/proj/.env.production", "/home/alice/proj/deploy/prod.env", "/home/alice/.env"] {
		_t_deny(_t_read(p)) == {"env-file"}
	}
}

test_read_dotenv_files_under_other_names if {
	every p in ["/home/alice/proj/.dev.vars", "/home/alice/proj/.dev.vars.staging", "/home/alice/proj/.secrets"] {
		_t_deny(_t_read(p)) == {"env-file"}
	}
	every p in ["/home/alice/proj/.dev.vars.example", "/home/alice/proj/dev.vars.md", "/home/alice/proj/.secretsrc"] {
		_t_allowed(_t_read(p))
	}
}

test_read_env_examples_allowed if {
	every p in ["/home/alice/proj/.env.example", "/home/alice/proj/.env.sample", "/home/alice/proj/.env.template", "/home/alice/proj/example.env"] {
		_t_allowed(_t_read(p))
	}
}

test_read_ssh_private_key if {
	_t_deny(_t_read("/home/alice/.ssh/id_ed25519")) == {"ssh-key"}
}

# the client configuration names hosts, users and the paths of keys, never a key (data.json's ssh_public_names);
# the keys it names stay denied, and so does a directory listing or glob of ~/.ssh (it reaches the keys)
test_read_ssh_config_allowed if {
	_t_allowed(_t_read("/home/alice/.ssh/config"))
	_t_deny(_t_read("/home/alice/.ssh/deploy_repo")) == {"ssh-key"}
	_t_deny(_t_read("/home/alice/.ssh/config.d/work")) == {"ssh-key"}
}

test_read_ssh_dir_listing if {
	_t_deny(_t_file("read", "list_directory", "dir_path", "~/.ssh", "/home/alice/.ssh")) == {"ssh-key"}
}

# a search whose file filter narrows it (blind-benign-11: `include: config` under ~/.ssh) has its root listed (`op`
# "list", daemon/hookd/enrich/search_roots.py): the files the filter reaches are entries of their own and judged
test_filtered_search_root_is_not_a_read if {
	root := {"arg": "path", "raw": "~/.ssh", "path": "/home/alice/.ssh", "in_project": false, "access": "read", "op": "list"}
	config := {"arg": "include", "raw": "/home/alice/.ssh/config", "path": "/home/alice/.ssh/config", "in_project": false, "access": "read", "glob": "config"}
	key := {"arg": "include", "raw": "/home/alice/.ssh/id_rsa", "path": "/home/alice/.ssh/id_rsa", "in_project": false, "access": "read", "glob": "id_*"}
	_t_allowed(object.union(_t_file("read", "grep", "path", "~/.ssh", "/home/alice/.ssh"), {"paths": [root, config]}))
	_t_deny(object.union(_t_file("read", "grep", "path", "~/.ssh", "/home/alice/.ssh"), {"paths": [root, key]})) == {"ssh-key"}
	_t_deny(object.union(_t_file("read", "grep", "path", "~/.ssh", "/home/alice/.ssh"), {"paths": [object.remove(root, ["op"]), config]})) == {"ssh-key"}
}

test_read_ssh_public_key_allowed if {
	_t_allowed(_t_read("/home/alice/.ssh/id_ed25519.pub"))
}

test_read_known_hosts_allowed if {
	_t_allowed(_t_read("/home/alice/.ssh/known_hosts"))
}

test_read_pem_and_key if {
	_t_deny(_t_read("/home/alice/proj/certs/server.key")) == {"private-key"}
	_t_deny(_t_read("/home/alice/proj/deploy.pem")) == {"private-key"}
}

# a PEM file the effect model read whole and found holding no private key (`holds: "public"`, blind-tamper-11)
test_read_a_pem_of_certificates_only if {
	p := "/home/alice/proj/certs/ca.pem"
	_t_allowed(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file", "holds": "public"}]}))
	_t_deny(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file"}]})) == {"private-key"}
}

# a dotenv file the effect model read whole and found naming its secrets instead of holding them (`holds:
# "no-secret"`: 1Password references, blind-benign-16); the mark frees an env file only, never a key
test_read_an_env_file_of_references_only if {
	p := "/home/alice/proj/.env.tpl"
	_t_allowed(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file", "holds": "no-secret"}]}))
	_t_deny(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file"}]})) == {"env-file"}
	e := {"op": "read", "path": "/p/.env", "known": true, "program": "cat", "via": "shell", "holds": "no-secret"}
	count(deny) == 0 with input as _effect_input([e])
	some k in deny with input as _effect_input([object.union(e, {"path": "/home/u/.ssh/id_ed25519"})])
	k.id == "ssh-key"
}

test_read_id_rsa_in_project if {
	_t_deny(_t_read("/home/alice/proj/tmp/id_rsa")) == {"private-key"}
}

# A file whose name says it is a private key, wherever it is and whatever its extension (blind-shell-6)
test_read_a_file_named_as_a_private_key if {
	every p in [
		"/home/alice/proj/.vagrant/machines/default/virtualbox/private_key",
		"/home/alice/proj/certs/server-private-key.txt",
		"/srv/le/live/example.net/privkey",
		"/home/alice/proj/PRIVATE_KEY",
	] {
		_t_deny(_t_read(p)) == {"private-key"}
	}
}

test_read_files_of_code_or_other_words_about_keys if {
	every p in [
		"/home/alice/proj/src/private_key.py",
		"/home/alice/proj/docs/private_keyboard_layout.txt",
		"/home/alice/proj/privacy/key_points.md",
		"/home/alice/proj/src/privileges.json",
	] {
		_t_allowed(_t_read(p))
	}
}

test_read_credential_files if {
	every p in [
		"/home/alice/.aws/credentials",
		"/home/alice/.netrc",
		"/home/alice/.docker/config.json",
		"/home/alice/.kube/config",
		"/home/alice/.git-credentials",
		"/home/alice/.config/gcloud/application_default_credentials.json",
		"/home/alice/.gnupg/private-keys-v1.d/ABC.key",
	] {
		"credentials-file" in _t_deny(_t_read(p))
	}
}

# Chromium's profile stores, in whichever Chromium or Electron app keeps them (https://x1dlabs.com/listings/browser-credential-forensics)
test_read_a_chromium_engines_stores if {
	every p in [
		"/home/alice/.config/discord/Local Storage/leveldb/000005.ldb",
		"/home/alice/.config/Slack/Cookies",
		"/home/alice/.config/Code/Session Storage/000003.log",
		"/home/alice/.config/vivaldi/Default/Login Data",
		"/home/alice/.config/Signal/IndexedDB/file__0.indexeddb.leveldb",
	] {
		"credentials-file" in _t_deny(_t_read(p))
	}
	_t_allowed(_t_read("/home/alice/.config/discord/settings.json"))
	_t_allowed(_t_read("/home/alice/proj/src/storage/local_storage.ts"))
}

test_read_aws_config_allowed if {
	_t_allowed(_t_read("/home/alice/.aws/config"))
}

test_read_root_credentials if {
	_t_deny(_t_read("/root/.aws/credentials")) == {"credentials-file"}
}

test_read_source_allowed if {
	_t_allowed(_t_read("/home/alice/proj/src/env.py"))
	_t_allowed(_t_read("/home/alice/proj/README.md"))
	_t_allowed(_t_read("/home/alice/proj/docs/keys.md"))
}

test_claude_read_tool if {
	inp := object.union(_t_base, {
		"client": "claude",
		"tool": {"name": "Read", "kind": "read", "input": {"file_path": "/home/alice/proj/.env"}},
		"paths": [{"arg": "file_path", "raw": "/home/alice/proj/.env", "path": "/home/alice/proj/.env", "in_project": true, "access": "read"}],
		"raw": {},
	})
	_t_deny(inp) == {"env-file"}
}

test_read_many_files_glob if {
	inp := _t_file("read", "read_many_files", "include", "**/.env*", "/home/alice/proj/**/.env*")
	_t_deny(inp) == {"env-file"}
}

test_reason_names_path_and_tool if {
	some v in deny with input as _t_read("/home/alice/proj/.env")
	contains(v.reason, "/home/alice/proj/.env")
	contains(v.reason, "read_file")
}

# ---------------------------------------------------------------------------------------------
# shell: judged by input.effects only (below); whole command lines through the effect model are in
# cases/secret_reads.json and the corpus. These inputs carry no effects, so nothing is read.
# ---------------------------------------------------------------------------------------------

test_cp_env_example_to_env_is_not_a_read if {
	# the destination is not read (protected_paths handles writing it)
	_t_allowed(_t_simple(["cp", ".env.example", ".env"]))
}

test_null_redirect_paths_ignored if {
	cmd := object.union(_t_cmd(["cat"]), {"redirects": [
		{"op": "<&", "target": "3", "path": null, "in_project": null},
		{"op": "<<<", "target": "x", "path": null, "in_project": null},
	]})
	_t_allowed(_t_shell("cat <&3 <<< x", [cmd]))
}

test_glob_tool_pattern_only_lists_names if {
	inp := object.union(_t_read("/home/alice/proj"), {
		"tool": {"name": "glob", "kind": "read", "input": {"pattern": "**/.env*"}},
		"paths": [{"arg": "pattern", "raw": "**/.env*", "path": "/home/alice/proj/**/.env*", "in_project": true, "access": "read"}],
	})
	_t_allowed(inp)
}

test_output_redirect_is_not_a_read if {
	inp := _t_shell("echo x > .env.test", [_t_redirect(_t_cmd(["echo", "x"]), ">", ".env.test")])
	_t_allowed(inp)
}

test_curl_user_at_host_allowed if {
	_t_allowed(_t_simple(["curl", "-s", "https://user@example.com/api"]))
}

test_glob_ssh_pub_allowed if {
	_t_allowed(_t_simple(["cat", "/home/alice/.ssh/*.pub"]))
}

test_plain_star_allowed if {
	_t_allowed(_t_simple(["grep", "-n", "TODO", "*"]))
	_t_allowed(_t_simple(["cat", "*.py"]))
}

test_unbalanced_glob_no_error if {
	_t_allowed(_t_simple(["cat", "notes[1"]))
}

test_non_readers_allowed if {
	_t_allowed(_t_simple(["ls", "-la", "/home/alice/.ssh"]))
	_t_allowed(_t_simple(["chmod", "600", "/home/alice/.ssh/id_rsa"]))
	_t_allowed(_t_simple(["ssh", "-i", "/home/alice/.ssh/id_rsa", "host"]))
	_t_allowed(_t_simple(["cat", ".env.example"]))
	_t_allowed(_t_simple(["cat", "src/main.py"]))
	_t_allowed(_t_simple(["grep", "-rn", "API_KEY", "src"]))
}

# ---------------------------------------------------------------------------------------------
# data.json consistency: the shortcuts in _reads and _secret
# ---------------------------------------------------------------------------------------------

# quick_pattern is an unanchored alternation of literal text that occurs in every entry, so that
# any path an entry matches contains a match of it too
test_quick_pattern if {
	q := data.secret_reads.quick_pattern
	not contains(q, "^")
	not contains(q, "$")
	every e in data.secret_reads.credential_files {
		regex.match(q, e.suffix)
	}
	every e in data.secret_reads.credential_dirs {
		regex.match(q, e.segment)
	}
	every e in data.secret_reads.credential_containers {
		regex.match(q, e.suffix)
	}
	every name in data.secret_reads.key_names {
		regex.match(q, name)
	}
	every suffix in data.secret_reads.key_suffixes {
		regex.match(q, suffix)
	}
}

# credential_file_suffixes is credential_files' suffixes, and credential_dir_pattern an unanchored regex that every
# credential_dirs segment matches (so any path holding one does): the gates of _secret_lists' walks
test_credential_list_gates if {
	data.secret_reads.credential_file_suffixes == [e.suffix | some e in data.secret_reads.credential_files]
	q := data.secret_reads.credential_dir_pattern
	not contains(q, "^")
	not contains(q, "$")
	every e in data.secret_reads.credential_dirs {
		regex.match(q, e.segment)
	}
}

# the walks are behind their gates: with a gate holding nothing, a listed file or directory is not found
test_credential_lists_behind_their_gates if {
	count(_secret_lists("/home/u/.aws/credentials")) > 0
	count(_secret_lists("/home/u/.aws/credentials")) == 0 with data.secret_reads.credential_file_suffixes as []
	count(_secret_lists("/home/u/.gnupg/x")) > 0
	count(_secret_lists("/home/u/.gnupg/x")) == 0 with data.secret_reads.credential_dir_pattern as "^$"
}

# home_store_roots is the set of first parts (under the home) of the stores `_stores_below` looks for, exactly
test_home_store_roots if {
	roots := {split(tail, "/")[1] | some [tail, _] in _home_stores}
	roots == {r | some r in data.secret_reads.home_store_roots}
	count(roots) == count(data.secret_reads.home_store_roots)
}

# the stores below a path are looked for only under a first part that home_store_roots names
test_stores_below_looked_up_by_first_part if {
	count(_stores_below("/home/u/.config")) > 0 with input.home as "/home/u"
	count(_stores_below("/home/u/.config")) == 0 with input.home as "/home/u"
		with data.secret_reads.home_store_roots as [".aws"]
	count(_stores_below("/home/u/project")) == 0 with input.home as "/home/u"
	count(_stores_below("/home/u")) == 0 with input.home as "/home/u"
	count(_stores_below("/etc")) > 0 with input.home as "/"
}

# _credential_text holds a piece of every name a test of _credential_words finds: each word and ending is plain
# text (a regex matches it as itself) and matches it, and so does the `api` of the API key pattern
test_credential_text if {
	every w in array.concat(data.secret_reads.credential_name_words, data.secret_reads.credential_name_endings) {
		regex.match(`^[a-z0-9]+$`, w)
		regex.match(_credential_text, w)
	}
	regex.match(_credential_text, "api")
}

# the gate answers as the tests behind it, for names that hold each word and ending in every spelling
test_credential_gate_answers_as_its_tests if {
	words := array.concat(data.secret_reads.credential_name_words, data.secret_reads.credential_name_endings)
	names := {n |
		some w in words
		some n in [w, upper(w), concat("", ["my", upper(substring(w, 0, 1)), substring(w, 1, -1), ".json"]), concat("", ["x_", w, "s.yml"]), concat("", ["pre", w]), concat("", [w, "key"])]
	} | {"apiKey", "x-api-keys", "API_KEY.txt", "config.toml", "keybindings.json", "tokenizer.json", "hookd", "settings.json", "a.b-c_d"}
	every n in names {
		_t_gated(n) == _t_tested(n)
	}
	count({n | some n in names; _t_gated(n)}) > count(words)
	count({n | some n in names; not _t_gated(n)}) > 0
}

_t_gated(n) if _credential_name(lower(n), n)

else := false

_t_tested(n) if _credential_words(lower(n), n)

else := false

# the gate is on the path: with it holding nothing, no name is one
test_credential_name_behind_its_gate if {
	_credential_name("token", "token")
	not _credential_name("token", "token") with data.hookd.secret_reads._credential_text as "^$"
}

# The effect model (input.effects)
_effect_input(effects) := {
	"event": "BeforeTool",
	"tool": {"kind": "shell", "name": "run_shell_command"},
	"home": "/home/u",
	"project_dir": "/p",
	"shell": {"source": "x", "parse_error": false, "commands": [{"name": "x", "argv": ["x"], "args": [], "redirects": [], "wrappers": []}]},
	"effects": effects,
}

test_effect_read_of_a_secret_is_denied if {
	d := deny with input as _effect_input([{"op": "read", "path": "/home/u/.aws/credentials", "known": true, "program": "look", "via": "shell"}])
	some v in d
	v.id == "credentials-file"
}

# A filter that prints only an env file's public variables' lines (the effect model's `public`,
# enrich/effects/public_lines.py): allowed; a key read so marked, or the env file's read without it, still denied.
test_effect_read_of_only_public_env_lines_is_allowed if {
	e := {"op": "read", "path": "/p/.env.local", "known": true, "program": "grep", "via": "shell", "public": true}
	count(deny) == 0 with input as _effect_input([e])
	some v in deny with input as _effect_input([object.remove(e, ["public"])])
	v.id == "env-file"
	some k in deny with input as _effect_input([object.union(e, {"path": "/home/u/.ssh/id_ed25519"})])
	k.id != ""
}

test_effect_output_the_catalogue_calls_a_credential_is_denied if {
	e := {"op": "read", "path": "/home/u/.config/nix/nix.conf", "known": true, "program": "nix", "via": "shell", "secret_output": true}
	some v in deny with input as _effect_input([e])
	v.id == "credentials-file"
	count(deny) == 0 with input as _effect_input([object.remove(e, ["secret_output"])])
}

# gaps38: a filter that prints only the names of a file's keys (`jq '.auths | keys[]'`: the effect model's `shows`)
test_effect_read_that_shows_names_only_is_not_a_credentials_read if {
	e := {"op": "read", "path": "/home/u/.docker/config.json", "known": true, "program": "jq", "via": "shell", "shows": "names"}
	count(deny) == 0 with input as _effect_input([e])
	some v in deny with input as _effect_input([object.remove(e, ["shows"])])
	v.id == "credentials-file"
}

# blindsh41: a printed credential piped through a names-only filter (`… -o json | jq '.data | keys'`)
test_effect_output_filtered_to_names_is_not_a_credentials_read if {
	e := {"op": "read", "path": "/home/u/.config/nix/nix.conf", "known": true, "program": "nix", "via": "shell", "secret_output": true, "shows": "names"}
	count(deny) == 0 with input as _effect_input([e])
	some v in deny with input as _effect_input([object.remove(e, ["shows"])])
	v.id == "credentials-file"
}

test_effect_read_of_new_secret_locations_is_denied if {
	every p in ["/home/u/.npmrc", "/home/u/.cargo/credentials.toml", "/home/u/.azure/msal_token_cache.json", "/home/u/.config/gh/hosts.yml", "/home/u/.kube/config", "/home/u/.docker/config.json"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		count(d) > 0
	}
}

test_guessed_read_of_a_secret_is_asked if {
	i := _effect_input([{"op": "read", "path": "/home/u/.npmrc", "known": true, "program": "tool", "via": "shell", "guess": true}])
	_r1 := deny with input as i
	count(_r1) == 0
	_s := ask with input as i
	some v in _s
	v.id == "credentials-file"
}

# blind-benign-7: `file "$(which node)"` reads what a search-path lookup finds (`installed`): an installed program.
test_a_read_of_what_a_lookup_finds_is_not_asked if {
	r := {"op": "read", "path": "", "raw": "$(which node)", "known": false, "program": "file", "via": "shell", "installed": "node"}
	count(ask) == 0 with input as _effect_input([r])
	c := object.union(r, {"op": "copy", "program": "cp"})
	count(ask) == 0 with input as _effect_input([c])
}

test_a_move_of_what_a_lookup_finds_is_still_asked if {
	m := {"op": "move", "path": "", "raw": "$(which node)", "known": false, "program": "mv", "via": "shell", "installed": "node"}
	some v in ask with input as _effect_input([m])
	v.id == "unknown-read"
}

test_unknown_read_is_asked if {
	i := _effect_input([{"op": "read", "path": "", "raw": "$(printf x)", "known": false, "program": "cat", "via": "shell"}])
	_s := ask with input as i
	some v in _s
	v.id == "unknown-read"
}

test_recursive_read_of_home_is_denied if {
	d := deny with input as _effect_input([{"op": "read", "path": "/home/u", "known": true, "recursive": true, "program": "cat", "via": "shell"}])
	some v in d
	v.id == "search-home"
}

test_project_reads_pass if {
	i := _effect_input([{"op": "read", "path": "/p/README.md", "known": true, "recursive": false, "program": "cat", "via": "shell"}])
	_r2 := deny with input as i
	count(_r2) == 0
	_r3 := ask with input as i
	count(_r3) == 0
}

test_tree_sent_to_the_network_is_asked if {
	i := _effect_input([{"op": "read", "path": "/p", "known": true, "recursive": true, "sent": true, "program": "curl", "via": "shell"}])
	_s := ask with input as i
	some v in _s
	v.id == "send-tree"
}

test_environment_dump_is_asked if {
	i := _effect_input([{"op": "read", "path": "/proc/self/environ", "known": true, "guess": true, "program": "env", "via": "shell"}])
	_s := ask with input as i
	some v in _s
	v.id == "credentials-file"
	_d := deny with input as _effect_input([{"op": "read", "path": "/proc/123/environ", "known": true, "program": "cat", "via": "shell"}])
	count(_d) > 0
}

test_effect_globs_of_secrets_are_denied if {
	every p in ["/p/.env*", "/home/u/.ssh/*", "/p/keys/id_*"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		count(d) > 0
	}
	every p in ["/home/u/.ssh/*.pub", "/p/*", "/p/*.py", "/p/notes[1"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		count(d) == 0
	}
}

test_effect_copies_and_uploads_of_secrets_are_denied if {
	every e in [
		{"op": "copy", "path": "/home/u/.ssh/id_rsa", "to": "/tmp/k", "known": true, "program": "cp", "via": "shell"},
		{"op": "read", "path": "/p/.env", "known": true, "upload": true, "program": "curl", "via": "shell"},
		{"op": "read", "path": "/home/u/.aws/credentials", "known": true, "program": "git", "history": true, "via": "shell"},
	] {
		d := deny with input as _effect_input([e])
		count(d) > 0
	}
}

# A tool hookd has no table for (an MCP server's file tools): its effects are judged
_mcp_input(op, path) := {
	"event": "BeforeTool",
	"tool": {"kind": "mcp", "name": "mcp__filesystem__read_file", "mcp": {"server": "filesystem", "tool": "read_file"}},
	"home": "/home/u",
	"project_dir": "/p",
	"effects": [{"op": op, "path": path, "known": true, "program": "mcp__filesystem__read_file", "via": "tool"}],
}

test_an_mcp_tool_reading_a_secret_is_denied if {
	d := deny with input as _mcp_input("read", "/home/u/.ssh/id_rsa")
	count(d) > 0
}

test_an_mcp_tool_reading_a_project_file_is_allowed if {
	count(deny) == 0 with input as _mcp_input("read", "/p/README.md")
}

test_a_web_tool_reading_a_secret_by_file_url_is_denied if {
	i := object.union(_mcp_input("read", "/home/u/.ssh/id_rsa"), {"tool": {"kind": "web", "name": "WebFetch"}})
	count(deny) > 0 with input as i
}

test_an_mcp_tool_reading_a_path_hookd_cannot_resolve_is_asked if {
	i := json.patch(_mcp_input("read", ""), [{"op": "replace", "path": "/effects/0/known", "value": false}])
	some v in ask with input as i
	v.id == "unknown-read"
	count(ask) == 0 with input as i with data.secret_reads.unknown_reads as "allow"
}

_metadata_fetch(kind) := {
	"event": "BeforeTool",
	"tool": {"kind": kind, "name": "webfetch"},
	"home": "/home/u",
	"project_dir": "/p",
	"effects": [
		{"op": "fetch", "path": "", "known": true, "program": "webfetch", "via": "tool", "url": "http://169.254.169.254/"},
		{"op": "read", "path": "", "known": true, "program": "webfetch", "via": "tool", "url": "http://169.254.169.254/", "metadata": true},
	],
}

test_a_web_or_mcp_tool_opening_the_instance_metadata_service_is_asked if {
	every kind in ["web", "mcp", "other"] {
		a := ask with input as _metadata_fetch(kind)
		some v in a
		v.id == "cloud-metadata"
	}
}

_admin_fetch(kind) := object.union(_metadata_fetch(kind), {"effects": [
	{"op": "fetch", "path": "", "known": true, "program": "webfetch", "via": "tool", "url": "http://localhost:2375/containers/json"},
	{"op": "read", "path": "", "known": true, "program": "webfetch", "via": "tool", "url": "http://localhost:2375/containers/json", "admin": "Docker Engine API"},
]})

test_a_web_or_mcp_tool_opening_a_local_admin_service_is_asked if {
	every kind in ["web", "mcp", "other"] {
		a := ask with input as _admin_fetch(kind)
		some v in a
		v.id == "local-admin"
	}
}

test_a_shell_fetch_of_a_local_admin_service_is_asked if {
	i := object.union(_admin_fetch("shell"), {"tool": {"kind": "shell", "name": "run_shell_command"}, "effects": [
		{"op": "read", "path": "", "known": true, "program": "curl", "via": "shell", "url": "http://localhost:10250/pods", "admin": "kubelet API"},
	]})
	some v in ask with input as i
	v.id == "local-admin"
}

test_a_web_tool_fetching_a_page_is_not_asked if {
	i := object.union(_metadata_fetch("web"), {"effects": [{"op": "fetch", "path": "", "known": true, "program": "webfetch", "via": "tool", "url": "https://docs.rs/"}]})
	count(ask) == 0 with input as i
}

test_a_read_tool_reading_a_secret_under_another_name_is_denied if {
	i := {
		"event": "BeforeTool",
		"tool": {"kind": "read", "name": "Read"},
		"home": "/home/u",
		"project_dir": "/p",
		"paths": [{"arg": "file_path", "path": "/home/u/dotfiles/ssh/id_rsa", "access": "read"}],
		"effects": [{"op": "read", "path": "/home/u/.ssh/id_rsa", "known": true, "via": "tool", "program": "Read", "alias": "/home/u/dotfiles/ssh/id_rsa"}],
	}
	count(deny) > 0 with input as i
}

test_an_mcp_search_over_the_home_is_denied if {
	i := object.union(_mcp_input("read", "/home/u"), {"effects": [{"op": "read", "path": "/home/u", "known": true, "recursive": true, "program": "mcp_ripgrep_search", "via": "tool"}]})
	d := deny with input as i
	some v in d
	v.id == "search-home"
}

test_a_backup_of_a_secret_is_a_secret if {
	every p in ["/p/config/production.env.bak", "/p/.env~", "/home/u/.ssh/id_rsa.orig", "/home/u/.netrc.save", "/home/u/.aws/credentials.old"] {
		count(_secret(p)) > 0
	}
}

test_a_backup_in_any_case_or_numbered_is_a_secret if {
	every p in ["/p/deploy/prod.env.BAK", "/p/certs/server.pem.Orig", "/p/certs/server.pem.1", "/home/u/.ssh/id_ed25519.~2~", "/home/u/.netrc,v"] {
		count(_secret(p)) > 0
	}
}

test_a_backup_of_an_ordinary_file_is_not if {
	every p in ["/p/README.md~", "/p/src/app.py.orig", "/p/.env.example.bak", "/home/u/.ssh/known_hosts.old", "/p/config.bak", "/p/lib/libfoo.so.1", "/p/docs/notes.txt.~1~", "/p/.env.example.2"] {
		count(_secret(p)) == 0
	}
}

# A program's own login store, known by the words of its name in a home dot-directory (no list names it)
test_credential_store_named_by_its_words_is_denied if {
	every p in ["/home/u/.codex/auth.json", "/home/u/.claude/.credentials.json", "/home/u/.gemini/oauth_creds.json", "/home/u/.pulumi/credentials.json", "/home/u/.cache/huggingface/token", "/home/u/.config/sops/age/keys.txt", "/home/u/.local/share/opencode/auth.json", "/home/u/.vault-token", "/home/u/.config/foo/apiKey", "/home/u/.config/bar/api_key.txt", "/home/u/.secrets/prod.json", "/home/u/.password-store/work/db.gpg", "/home/u/.config/app/credentials/default.yaml", "/home/u/.openai_key", "/home/u/.config/x/apitoken", "/home/u/.config/x/clientSecret.txt", "/home/u/.config/Slack/Cookies", "/home/u/.config/y/license_key.txt"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		some v in d
		v.id == "credentials-file"
	}
}

test_a_directory_named_as_credentials_is_judged_below_the_home_only if {
	d := deny with input as object.union(_effect_input([{"op": "read", "path": "/srv/auth/u/.config/x/settings.json", "known": true, "program": "cat", "via": "shell"}]), {"home": "/srv/auth/u"})
	count(d) == 0
	e := deny with input as object.union(_effect_input([{"op": "read", "path": "/srv/auth/u/.secrets/a.json", "known": true, "program": "cat", "via": "shell"}]), {"home": "/srv/auth/u"})
	some v in e
	v.id == "credentials-file"
}

test_name_words_that_are_not_credentials_are_allowed if {
	every p in ["/home/u/.config/Code/User/keybindings.json", "/home/u/.cache/huggingface/hub/models--x/tokenizer.json", "/home/u/.config/foo/settings.json", "/home/u/.local/lib/python3.11/site-packages/requests/auth.py", "/home/u/.config/nvim/lua/auth.lua", "/p/src/auth.json", "/p/tokens.json", "/home/u/.npm/_cacache/index-v5/authors", "/home/u/.m2/repository/org/x/spring-security-oauth/2.0/spring-security-oauth-2.0.pom", "/home/u/.cargo/registry/src/x/oauth2-4.4/README", "/home/u/.config/Code/User/key_bindings.json", "/home/u/.config/x/hotkey.json", "/home/u/.vscode/extensions/github.vscode-pull-request-github-0.1/dist/auth/package.json", "/home/u/.local/share/nvim/sessions/work.vim", "/home/u/.config/x/tokenizer/vocab.json", "/srv/auth/u/.config/x/settings.json"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		count(d) == 0
	}
}

# A home dot-tree file no rule names, holding a credential by its shape (the effect model's `holds`): asked.
test_a_read_of_a_file_holding_a_credential_is_asked if {
	i := json.patch(_mcp_input("read", "/home/u/.databrickscfg"), [{"op": "add", "path": "/effects/0/holds", "value": "credential"}])
	some v in ask with input as i
	v.id == "credential-content"
}

test_a_read_of_a_home_dot_file_holding_nothing_is_allowed if {
	i := _mcp_input("read", "/home/u/.databrickscfg")
	count(ask) == 0 with input as i
	count(deny) == 0 with input as i
}

_sends(kind, args, effects) := {"event": "BeforeTool", "tool": {"name": "mcp__chat__post", "kind": kind, "input": args}, "paths": [], "effects": effects}

test_an_mcp_tool_sending_a_credential_in_its_arguments_is_asked if {
	every args in [
		{"channel": "C1", "text": "key AKIAQWERTYUIOPASDFGH for the job"},
		{"blocks": [{"body": "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"}]},
		{"q": "xoxb-1234567890-abcdefghij"},
		{"text": "docs use AKIAI44QH8DHBEXAMPLE; ours is AKIAQWERTYUIOPASDFGH"},
	] {
		some v in ask with input as _sends("mcp", args, [])
		v.id == "secret-sent"
	}
}

test_an_mcp_tool_sending_text_without_a_credential_or_writing_a_file_is_not_asked if {
	w := [{"op": "write", "path": "/p/test/fixture.txt", "via": "tool", "program": "mcp__fs__write_file"}]
	every i in [
		_sends("mcp", {"text": "AKIA is the prefix of AWS keys"}, []),
		_sends("mcp", {"body": "the docs' AKIAI44QH8DHBEXAMPLE fails with InvalidClientTokenId"}, []),
		_sends("mcp", {"content": "AKIAQWERTYUIOPASDFGH"}, w),
		_sends("write", {"content": "AKIAQWERTYUIOPASDFGH"}, []),
	] {
		count({v | some v in ask with input as i; v.id == "secret-sent"}) == 0
	}
}

# Jupyter's runtime files: a kernel's connection key and a server's token let whoever reads them run code there
# (blind-tools-11); the notebooks and Jupyter's own settings are not
test_jupyters_runtime_files_are_credentials if {
	every p in ["/home/u/.local/share/jupyter/runtime/kernel-2fc0c96e.json", "/home/u/.local/share/jupyter/runtime/jpserver-4242.json", "/Users/u/Library/Jupyter/runtime/kernel-1.json"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		some v in d
		v.id == "credentials-file"
	}
	every p in ["/home/u/.jupyter/jupyter_server_config.py", "/home/u/.local/share/jupyter/kernels/python3/kernel.json", "/p/notebooks/runtime/a.ipynb"] {
		d := deny with input as _effect_input([{"op": "read", "path": p, "known": true, "program": "cat", "via": "shell"}])
		count(d) == 0
	}
}

# benign41: a process's memory (proc_pid_mem(5)) holds what its environment does, and more: `gcore PID`,
# `dd if=/proc/PID/mem`
test_process_memory_read_is_denied if {
	d := deny with input as _effect_input([{"op": "read", "path": "/proc/4242/mem", "known": true, "program": "gcore", "via": "shell"}])
	some v in d
	v.id == "credentials-file"
}

# a settings file named as a credential store the effect model read whole and found holding no credential (`holds:
# "no-secret"`, enrich/holdings.py: a project `.npmrc` of `registry=` only, blind-benign-17); unmarked, still denied
test_read_a_credential_store_of_settings_only if {
	p := "/home/alice/proj/.npmrc"
	_t_allowed(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file", "holds": "no-secret"}]}))
	_t_deny(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file"}]})) == {"credentials-file"}
	_t_deny(object.union(_t_read("/home/alice/.aws/credentials"), {"effects": [{"op": "read", "path": p, "program": "read_file", "holds": "no-secret"}]})) == {"credentials-file"}
}

# a key the effect model found below the project's test data (`holds: "test-data"`, enrich/holdings.py, blind-benign-17):
# the tests' fixture passes; unmarked, or a key of ~/.ssh however marked, still denied
test_read_a_key_of_the_tests_own_data if {
	p := "/home/alice/proj/test/fixtures/id_rsa"
	_t_allowed(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file", "holds": "test-data"}]}))
	_t_deny(object.union(_t_read(p), {"effects": [{"op": "read", "path": p, "program": "read_file"}]})) == {"private-key"}
	k := "/home/alice/.ssh/id_rsa"
	_t_deny(object.union(_t_read(k), {"effects": [{"op": "read", "path": k, "program": "read_file", "holds": "test-data"}]})) == {"ssh-key"}
}

# fp48: a tree read whole with the names at its top known (`entries`) may hold a store only below one of them;
# without them, every store below it counts
test_stores_in_a_tree_by_its_top_names if {
	tree := {"op": "copy", "path": "/home/u/.claude", "known": true, "recursive": true, "program": "rsync", "via": "shell"}
	count(ask) == 0 with input as _effect_input([object.union(tree, {"entries": ["CLAUDE.md", "settings.json"]})])
	some v in ask with input as _effect_input([object.union(tree, {"entries": [".credentials.json", "settings.json"]})])
	v.id == "search-secrets"
	some w in ask with input as _effect_input([tree])
	w.id == "search-secrets"
	count(_stores_in({"path": "/home/u/.aws", "entries": ["credentials"]})) > 0 with input.home as "/home/u"
	count(_stores_in({"path": "/home/u/.aws", "entries": ["config"]})) == 0 with input.home as "/home/u"
	count(_stores_in({"path": "/home/u/.config", "entries": ["nvim"]})) == 0 with input.home as "/home/u"
	count(_stores_in({"path": "/home/u/.config", "entries": ["gh", "nvim"]})) > 0 with input.home as "/home/u"
}
