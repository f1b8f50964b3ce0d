# Secret reads: the agent may not read secrets into its context (or copy/upload them):
#   * .env files (.env, .env.local, prod.env; not .env.example/.sample/.template/.dist),
#   * private keys (id_rsa, id_ed25519, ..., *.pem, *.key, *.p12, ...),
#   * everything in ~/.ssh except public keys (*.pub) and known_hosts,
#   * ~/.aws/credentials, ~/.netrc, ~/.docker/config.json, ~/.kube/config, ~/.git-credentials,
#     ~/.pgpass, ~/.pypirc, ~/.config/gcloud/**, ~/.gnupg/**.
#
# File tools (kind read) are checked through input.paths. Shell commands are checked when a reading
# program (cat, less, head, tail, grep, base64, xxd, strings, jq, tar, curl, ...) names such a path,
# when cp/scp/rsync/mv copy one away, when a `<` redirect feeds one to any program, when curl
# uploads one (`-d @file`, `-F x=@file`), and for dd if=. A glob such as `.env*` or `id_*` counts
# when it could match a secret name. Paths are matched by their shape, not only under input.home.
# Lists live in data.json (data.secret_reads).
package hookd.secret_reads

routing := {"events": ["BeforeTool"], "kinds": ["read", "shell"]}

_cfg := data.secret_reads

_file_tool if {
	input.event == "BeforeTool"
	input.tool.kind == "read"
}

_shell if {
	input.event == "BeforeTool"
	input.tool.kind == "shell"
}

_cmds := input.shell.commands if _shell

deny contains {"id": m.id, "reason": reason} if {
	some r in _reads
	some m in _secret(r.path)
	reason := sprintf("reading %s with %s is blocked: it holds %s, which must not reach the model", [r.path, r.via, m.what])
}

# ---------------------------------------------------------------------------------------------
# What is read: {"path": absolute path, "via": how}
# ---------------------------------------------------------------------------------------------

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "a file tool"

_reads contains {"path": e.path, "via": _tool_name} if {
	_file_tool
	some e in input.paths
	not e.arg == "pattern" # a glob tool's pattern only lists names
}

_reads contains {"path": a.path, "via": c.name} if {
	some c in _cmds
	c.name in _cfg.readers
	some a in c.args
}

_reads contains {"path": a.path, "via": c.name} if {
	some c in _cmds
	c.name in _cfg.copiers
	a := _sources(c)[_]
}

_reads contains {"path": r.path, "via": sprintf("%s < (redirect)", [c.name])} if {
	some c in _cmds
	some r in c.redirects
	regex.match(`^[0-9]*<>?$`, r.op)
	is_string(r.path) # null for `<&3`
}

_reads contains {"path": _resolve(m[1]), "via": sprintf("%s upload", [c.name])} if {
	some c in _cmds
	c.name in _cfg.uploaders
	some tok in c.argv
	some m in regex.find_all_string_submatch_n(`^(?:@|[^@/:]*=@)([^;]+)`, tok, 1)
	m[1] != "-"
}

_reads contains {"path": _resolve(substring(tok, count(prefix), -1)), "via": c.name} if {
	some c in _cmds
	some prefix in ["--post-file=", "--body-file=", "--upload-file="]
	c.name in {"wget", "curl"}
	some tok in c.argv
	startswith(tok, prefix)
}

_reads contains {"path": _resolve(substring(tok, 3, -1)), "via": "dd"} if {
	some c in _cmds
	c.name == "dd"
	some tok in c.argv
	startswith(tok, "if=")
}

# cp/scp/rsync/mv: every argument but the destination (all of them when -t names the destination)
_sources(c) := c.args if _has_target_dir(c)

_sources(c) := array.slice(c.args, 0, count(c.args) - 1) if not _has_target_dir(c)

_has_target_dir(c) if {
	some tok in c.argv
	tok == "-t"
}

_has_target_dir(c) if {
	some tok in c.argv
	startswith(tok, "--target-directory")
}

_project := trim_suffix(input.project_dir, "/")

_resolve(p) := p if startswith(p, "/")

_resolve(p) := concat("", [trim_suffix(input.home, "/"), substring(p, 1, -1)]) if startswith(p, "~/")

_resolve(p) := concat("/", [_project, trim_prefix(p, "./")]) if {
	not startswith(p, "/")
	not startswith(p, "~/")
}

# ---------------------------------------------------------------------------------------------
# What is secret: a set of {"id", "what"} (normally one)
# ---------------------------------------------------------------------------------------------

_secret(p) := _secret_literal(p) | _secret_glob(p)

_secret_literal(p) := union({
	{m |
		_ssh_private(p)
		m := {"id": "ssh-key", "what": "SSH private keys and config"}
	},
	{m |
		not _has_segment(p, "/.ssh") # reported once, as ssh-key
		_private_key(_basename(p))
		m := {"id": "private-key", "what": "a private key"}
	},
	{m |
		some e in _cfg.credential_files
		endswith(p, e.suffix)
		m := {"id": "credentials-file", "what": e.what}
	},
	{m |
		some e in _cfg.credential_dirs
		_has_segment(p, e.segment)
		m := {"id": "credentials-file", "what": e.what}
	},
	{m |
		some e in _cfg.credential_containers
		endswith(p, e.suffix)
		m := {"id": "credentials-file", "what": e.what}
	},
	{m |
		_env_file(_basename(p))
		m := {"id": "env-file", "what": "environment secrets (.env)"}
	},
})

# `.env*`, `id_*`, `*.pem` in a glob: secret when the pattern could match a secret name there
_secret_glob(p) := {m |
	b := _basename(p)
	regex.match(`[*?\[{]`, b)
	not regex.match(`^[*?.]*$`, b)
	re := _glob_regex(b)
	some sample in _cfg.glob_samples
	regex.match(re, sample)
	some m in _secret_literal(concat("/", [_dirname(p), sample]))
}

# A shell glob as an anchored regex. Built by hand because glob.match raises on malformed
# patterns (`notes[1`) in regorus: [..] becomes one character, {a,b} becomes *, the rest is quoted.
_glob_regex(b) := concat("", ["^", replace(replace(quoted, "*", "[^/]*"), "?", "[^/]"), "$"]) if {
	b1 := regex.replace(b, `\[[^\]]*\]`, "?")
	b2 := regex.replace(b1, `\{[^}]*\}`, "*")
	quoted := regex.replace(b2, `([.+()|\[\]{}^$\\])`, `\$1`)
}

_ssh_private(p) if {
	_has_segment(p, "/.ssh")
	not _ssh_public(p)
}

_ssh_public(p) if {
	some s in _cfg.ssh_public_suffixes
	endswith(p, s)
}

_ssh_public(p) if _basename(p) in _cfg.ssh_public_names

_private_key(b) if b in _cfg.key_names

_private_key(b) if {
	some s in _cfg.key_suffixes
	endswith(b, s)
}

_env_file(b) if {
	_env_name(b)
	not _example(b)
}

_env_name(b) if b == ".env"

_env_name(b) if startswith(b, ".env.")

_env_name(b) if endswith(b, ".env")

_example(b) if {
	some w in split(lower(b), ".")
	w in _cfg.env_example_words
}

_has_segment(p, seg) if endswith(p, seg)

_has_segment(p, seg) if contains(p, concat("", [seg, "/"]))

_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

_dirname(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if parts := split(p, "/")
