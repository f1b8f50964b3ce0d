# Secret reads: the agent may not read secrets into its context (or copy/upload them):
#   * .env files (.env, .env.local, prod.env; not .env.example/.sample/.template/.dist),
#   * private keys (id_rsa, id_ed25519, ..., *.pem, *.key, *.p12, ...),
#   * everything in ~/.ssh except public keys (*.pub) and known_hosts,
#   * ~/.aws/credentials, ~/.netrc, ~/.docker/config.json, ~/.kube/config, ~/.git-credentials,
#     ~/.pgpass, ~/.pypirc, ~/.config/gcloud/**, ~/.gnupg/**.
#   * a file in a home dot-directory whose name's words say it holds a credential (`~/.codex/auth.json`).
#
# File tools (kind read) are checked through input.paths. Shell commands are checked through their effects
# (input.effects, docs/policies.md "The effect model"): every read, copy or move of a file by any program the
# catalogue knows (a reader, a `<` redirect, a copy's source, an upload such as `curl -F f=@file`, `dd if=`,
# `git show REV:path`, a command whose output is a credential), whatever wraps it; no rule here names a
# reading program. A glob such as `.env*` or `id_*` counts when it could match a secret name. Paths are
# matched by their shape, not only under input.home. Lists live in data.json (data.secret_reads).
#
# Performance (this package runs on every read and shell call; see "Writing fast rules" in ../README.md):
# it is routed to a shell call only when its effects read a file or hold something unknown, and `_secret`
# runs one regex (quick_pattern) before the ~30 string tests of the lists.
package hookd.secret_reads

# Shell calls only when a rule here can act on them (docs/policies.md, "Routing"): an effect that reads a
# file (whatever program has it), or one only known when the shell runs.
routing := {
	"events": ["BeforeTool"],
	"kinds": ["read", "shell", "mcp", "other", "web"],
	"shell": ["effect-read", "effect-unknown"],
}

_cfg := data.secret_reads

# ---------------------------------------------------------------------------------------------
# What is read by file tools (input.paths); shell commands are judged by their effects (below).
# ---------------------------------------------------------------------------------------------

deny contains {"id": m.id, "reason": _reason(e.path, _tool_name, m)} if {
	input.tool.kind == "read"
	input.event == "BeforeTool"
	some e in input.paths
	not e.arg == "pattern" # a glob tool's pattern only lists names
	not e.op == "list" # a search root its file filter narrows: the files it reaches are entries of their own
	some m in _secret(e.path)
}

# A tool hookd has no table for (an MCP server's `read_file`, `read_multiple_files`, a browser's file upload):
# judged on the effects its path arguments have (daemon/hookd/enrich/tool_args.py); a web tool given a
# `file://` URL reads that file; a file tool's read under another name of its file (`alias`:
# `~/dotfiles/ssh/id_rsa` where `~/.ssh` is a link to `~/dotfiles/ssh`, daemon/hookd/enrich/aliases.py).
_tool_more_deny contains {"id": m.id, "reason": _reason(e.path, _tool_name, m)} if {
	input.tool.kind in {"mcp", "other", "web", "read"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op in {"read", "copy", "move"}
	true in [input.tool.kind != "read", object.get(e, "alias", "") != ""] # a read tool's own paths: above
	some m in _secret(e.path)
}

# Such a tool, or a web tool, that opens the cloud instance metadata service (a `url`/`uri` argument or a URL in
# a web tool's prompt, in any spelling of the address: the effect model's `metadata`): asked, as for the shell.
ask contains {"id": "cloud-metadata", "reason": reason} if {
	input.tool.kind in {"mcp", "other", "web"}
	input.event == "BeforeTool"
	some e in input.effects
	object.get(e, "metadata", false) == true
	reason := sprintf("%s asks the cloud instance metadata service (%s), which hands out this machine's credentials; confirm it", [e.program, e.url])
}

# Such a tool that opens a local admin or credential service (Docker's Engine API, the kubelet, Consul, Vault,
# Envoy's admin…: the effect model's `admin`, on a loopback host in any spelling, or redirected to): asked.
ask contains {"id": "local-admin", "reason": reason} if {
	input.tool.kind in {"mcp", "other", "web"}
	input.event == "BeforeTool"
	some e in input.effects
	object.get(e, "admin", "") != ""
	reason := sprintf("%s asks %s on this machine (%s), which hands out its secrets or runs code; confirm it", [e.program, e.admin, e.url])
}

# Such a tool that sends a credential to its service in its arguments (a chat message's text, a page's content, a
# search query): the text holds one of model_secrets' credential patterns (a private key block, a cloud or forge
# token; not a vendor's documented placeholder). Asked: the secret leaves the machine whichever file it came from.
# A tool that writes a file is judged by its paths instead (a file tool's kind is never mcp or other), so a
# fixture's fake key written into the project is not a send. Literal first, then the regex, as model_secrets does.
ask contains {"id": "secret-sent", "reason": reason} if {
	input.tool.kind in {"mcp", "other"}
	input.event == "BeforeTool"
	not _writes_a_file
	text := json.marshal(input.tool.input)
	some p in data.model_secrets.patterns
	some l in p.literals
	contains(text, l)
	regex.match(p.regex, text)
	some found in regex.find_n(p.regex, text, 16)
	not _placeholder(p, found)
	reason := sprintf("%s sends %s to its service; confirm it", [_tool_name, p.what])
}

# A vendor's documented example credential (the pattern's `placeholder`: AWS ends every example key id in EXAMPLE),
# quoted from its documentation: no secret of anyone's.
_placeholder(p, found) if regex.match(object.get(p, "placeholder", "^$"), found)

_writes_a_file if {
	some e in input.effects
	e.via == "tool"
	e.op == "write"
}

# Such a tool whose path argument holds what hookd cannot resolve (a string with a NUL, one longer than
# any path): the file it reads is not known, so it is asked (unknown_reads in data.json: "ask", or "allow").
_tool_more_ask contains {"id": "unknown-read", "reason": reason} if {
	_cfg.unknown_reads == "ask"
	input.tool.kind in {"mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.via == "tool"
	e.op in {"read", "copy", "move"}
	e.known == false
	reason := sprintf("%s reads a file whose name hookd cannot resolve from its arguments; confirm it", [_tool_name])
}

# A search tool over a home, an ancestor of one, or / (`Grep` with `path: ~`, an MCP server's search given the
# home as its `root`): it reads every secret there.
_tool_more_deny contains {"id": "search-home", "reason": reason} if {
	input.tool.kind in {"read", "mcp", "other"}
	input.event == "BeforeTool"
	some e in input.effects
	e.op == "read"
	e.recursive == true
	_home_or_above(e.path)
	reason := sprintf("%s searches all of %s, and with it the secrets there (keys, credentials, .env files)", [_tool_name, e.path])
}

# A read tool's rules beyond its paths (a search over a whole tree) and those of a tool hookd has no table for,
# behind one gate: a plain read tries none of them (each rule tried costs regorus a few µs).
deny contains v if {
	_tool_more
	some v in _tool_more_deny
}

ask contains v if {
	_tool_more
	some v in _tool_more_ask
}

_tool_more if input.tool.kind in {"mcp", "other", "web"}

_tool_more if {
	input.tool.kind == "read"
	some e in input.effects
	true in [e.recursive == true, object.get(e, "alias", "") != ""] # a search, or a file's other name
}

_reason(path, via, m) := sprintf("reading %s with %s is blocked: it holds %s, which must not reach the model", [path, via, m.what])

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "a file tool"

_home_or_above(p) if p == "/"

_home_or_above(p) if {
	home := trim_suffix(input.home, "/")
	true in [p == home, startswith(home, concat("", [p, "/"])), p == "/home", p == "/Users", p == "/root"]
}

# ---------------------------------------------------------------------------------------------
# What is secret: a set of {"id", "what"} (normally one)
# ---------------------------------------------------------------------------------------------

# Every secret path contains a text that one regex finds at once (a literal alternation compiles in
# no time): data.json's quick_pattern for the lists there (test_quick_pattern checks that every
# credential suffix and segment, key name and key suffix contains a match of it; "" turns the
# shortcut off), and `/.ssh`, `.env` and the glob characters for the rules that are not lists.
# An ordinary path costs that one regex instead of some 30 string tests.
# (the pattern built inline: a rule holding it costs a read's single path ~5 µs more than the concat)
_secret(p) := (_secret_literal(p) | _secret_glob(p)) | _secret_backup(p) if {
	regex.match(concat("|", [data.secret_reads.quick_pattern, `/\.ssh|\.env|[*?\[{]`]), p)
} else := set()

# The data.json lists of credential files and directories, and then the rules that are not lists,
# each behind its own test that every match of theirs passes. (_secret_glob tries sample names here.)
_secret_literal(p) := (_secret_lists(p) | _secret_named(p)) | _secret_store_name(p)

# A file in a home's dot-directory (or a home dotfile) whose NAME's words say it holds a credential: a
# program's own login store that no list names (`~/.codex/auth.json`, `~/.gemini/oauth_creds.json`,
# `~/.pulumi/credentials.json`, `~/.cache/huggingface/token`, `~/.config/sops/age/keys.txt`), or any file
# below a directory there named so (`~/.secrets/prod.json`, `~/.password-store/x.gpg`). Words split as
# daemon/hookd/enrich/tool_args.py `words` does (camelCase, and on any non-alphanumeric), so
# `keybindings.json` or `tokenizer.json` are not; a word that ends in one (`apitoken`, `clientsecret`) is one,
# and so is `key` when it ends the name (`~/.openai_key`, not `key_bindings.json`); a file whose extension says
# it is code (a library's `auth.py` under ~/.local/lib) is not; data.json's credential_name_words,
# credential_name_endings and credential_name_code_suffixes.
_secret_store_name(p) := {{"id": "credentials-file", "what": "a program's stored credentials (a file in a home dot-directory named as one)"} |
	_in_home_dot(p)
	b := _basename(p)
	_credential_place(p, b)
	not _code_name(lower(b))
	not regex.match(`/(node_modules|site-packages|dist-packages|\.m2/repository|\.gradle/caches|\.cargo/registry|\.rustup/toolchains|\.vscode(-server)?/extensions|\.cursor/extensions)/`, p) # packages' own files
} if {
	contains(p, "/.")
} else := set()

_credential_place(_, b) if _credential_name(lower(b), b)

_credential_place(_, b) if {
	stem := regex.replace(lower(b), `^(.+)\.[a-z0-9]+$`, "$1")
	words := regex.find_n(`[a-z0-9]+`, stem, -1)
	count(words) > 1
	words[count(words) - 1] == "key"
}

# a directory below the home's dot-directory (or the dot-directory itself) named as holding credentials
_credential_place(p, _) if {
	parts := split(_below_home(p), "/")
	some i
	parts[i]
	i < count(parts) - 1
	_credential_name(lower(parts[i]), parts[i])
}

_below_home(p) := trim_prefix(p, prefix) if {
	prefix := concat("", [trim_suffix(input.home, "/"), "/"])
	prefix != "/"
	startswith(p, prefix)
} else := regex.replace(p, `^(/root|/home/[^/]+|/Users/[^/]+)/`, "")

_in_home_dot(p) if regex.match(`^(/root|/home/[^/]+|/Users/[^/]+)/\.`, p)

_in_home_dot(p) if {
	home := trim_suffix(input.home, "/")
	home != ""
	startswith(p, concat("", [home, "/."]))
}

# `lb` is lower(b). Each test of _credential_words finds a credential word or ending, or `api`, as a piece of lb:
# one regex of them all, built from data.json's lists, rules them all out for most names (they cost regorus 40-65
# µs a name, and a home dotfile's path asks for its name and every directory's; test_credential_text keeps it so).
_credential_name(lb, b) if {
	regex.match(_credential_text, lb)
	_credential_words(lb, b)
}

_credential_text := concat("|", array.concat(array.concat(_cfg.credential_name_words, _cfg.credential_name_endings), ["api"]))

_credential_words(lb, _) if {
	some w in regex.split(`[^a-z0-9]+`, lb)
	w in _cfg.credential_name_words
}

_credential_words(_, b) if {
	some w in regex.find_n(`[A-Z]?[a-z0-9]+|[A-Z]+`, b, -1)
	lower(w) in _cfg.credential_name_words
}

_credential_words(lb, _) if regex.match(`(^|[^a-z])api[_-]?keys?([^a-z]|$)`, lb)

_credential_words(lb, _) if {
	some w in regex.split(`[^a-z0-9]+`, lb)
	some e in _cfg.credential_name_endings
	endswith(w, e)
}

_code_name(lb) if {
	parts := split(lb, ".")
	count(parts) > 1
	parts[count(parts) - 1] in _cfg.credential_name_code_suffixes
}

# Each list walked only when one builtin says an entry of it matches (data.json's credential_file_suffixes and
# credential_dir_pattern, made from the lists: test_credential_list_gates keeps them so): a path with a dot-named
# part passes quick_pattern, and walking the two lists cost regorus ~85 µs for it.
_secret_lists(p) := ({m |
	strings.any_suffix_match(p, data.secret_reads.credential_file_suffixes)
	some e in data.secret_reads.credential_files
	endswith(p, e.suffix)
	not _holds_no_secret(p) # a settings file the effect model read whole and found holding no credential
	m := {"id": "credentials-file", "what": e.what}
} | {m |
	regex.match(data.secret_reads.credential_dir_pattern, p)
	some e in data.secret_reads.credential_dirs
	contains(p, e.segment)
	_has_segment(p, e.segment)
	m := {"id": "credentials-file", "what": e.what}
}) | {m |
	some e in data.secret_reads.credential_containers
	endswith(p, e.suffix)
	m := {"id": "credentials-file", "what": e.what}
} if {
	regex.match(data.secret_reads.quick_pattern, p)
} else := set()

_secret_named(p) := (({m |
	regex.match(data.secret_reads.history_pattern, p)
	m := {"id": "credentials-file", "what": "shell and REPL history (commands typed with their passwords and tokens)"}
} | {m |
	_ssh_private(p)
	m := {"id": "ssh-key", "what": "SSH private keys"}
}) | {m |
	_private_key(_basename(p))
	not _has_segment(p, "/.ssh") # reported once, as ssh-key
	not _public_pem(p)
	not _test_data(p)
	m := {"id": "private-key", "what": "a private key"}
}) | {m |
	_env_file(_basename(p))
	not _holds_no_secret(p)
	m := {"id": "env-file", "what": "environment secrets (.env)"}
} if {
	# any of these (a basename in key_names or ending in one of key_suffixes ends the path too)
	true in [
		contains(p, "/.ssh"),
		strings.any_suffix_match(p, data.secret_reads.key_names),
		strings.any_suffix_match(p, data.secret_reads.key_suffixes),
		contains(p, ".env"),
		contains(p, "hist"),
		contains(p, "/.dev.vars"),
		contains(p, "/.secrets"),
		contains(lower(p), "priv"),
	]
} else := set()

# A backup, editor or swap copy of a secret holds the same secret (`prod.env.bak`, `.env~`, `id_rsa.orig`,
# `.netrc.save`: GNU's `cp --backup` and Emacs add `~`, vim `.swp`, people `.bak`/`.old`): judged as the file
# with the suffix taken off (data.json's backup_suffixes, in any case: `prod.env.BAK`), and a numbered copy
# (`cp --backup=numbered`'s `.~1~`, a rotated `.1`, RCS's `,v`) as the file it numbers.
_secret_backup(p) := {m |
	some s in _cfg.backup_suffixes
	endswith(lower(p), s)
	some m in _secret_literal(substring(p, 0, count(p) - count(s)))
} | {m |
	regex.match(`(\.~[0-9]+~|\.[0-9]+|,v)$`, p)
	some m in _secret_literal(regex.replace(p, `(\.~[0-9]+~|\.[0-9]+|,v)$`, ""))
}

# `.env*`, `id_*`, `*.pem` in a glob: secret when the pattern could match a secret name there
_secret_glob(p) := {m |
	true in [contains(p, "*"), contains(p, "?"), contains(p, "[")] # cheap gate; `{a,b}` the parser expanded
	b := _basename(p)
	regex.match(`[*?\[]`, b)
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

# A PEM file the effect model read whole and found holding certificates or public keys only (`holds: "public"`,
# daemon/hookd/enrich/holdings.py): named like a key, it holds none.
_public_pem(p) if {
	some e in input.effects
	e.path == p
	object.get(e, "holds", "") == "public"
}

# A dotenv file the effect model read whole and found naming its secrets instead of holding them (`holds:
# "no-secret"`, daemon/hookd/enrich/holdings.py: every value a 1Password `op://` reference, another variable's
# expansion, a number or a flag under a name that is no credential's, or empty): named like .env, it holds none.
# So does a program's settings file named as a credential store whose every setting holds no credential (a project
# `.npmrc` of `registry=` only, blind-benign-17): the credential_files match passes it.
_holds_no_secret(p) if {
	some e in input.effects
	e.path == p
	object.get(e, "holds", "") == "no-secret"
}

# A key the effect model found below the project's test data, reached through no link (`holds: "test-data"`,
# daemon/hookd/enrich/holdings.py: Go's `testdata`, `test/fixtures`, `spec/fixtures`, `cypress/fixtures`): the
# tests' own fixture, checked in with the code they test (blind-benign-17); never a key of ~/.ssh (ssh-key).
_test_data(p) if {
	some e in input.effects
	e.path == p
	object.get(e, "holds", "") == "test-data"
}

_private_key(b) if {
	some s in _cfg.key_suffixes
	endswith(b, s)
}

# A file whose NAME says it is a private key, wherever it is and whatever its extension (Vagrant's
# `.vagrant/machines/<name>/<provider>/private_key`, config.ssh.private_key_path:
# https://github.com/hashicorp/vagrant/blob/main/website/content/docs/vagrantfile/ssh_settings.mdx; a
# certificate tool's `privkey`, `server-private-key.txt`): its words, split on any non-alphanumeric, hold
# `private` followed by `key` (or `privkey`); not a file of code that handles keys (`private_key.py`).
_private_key(b) if {
	lb := lower(b)
	contains(lb, "priv")
	words := regex.split(`[^a-z0-9]+`, lb)
	_private_key_words(words)
	not _code_name(lb)
}

_private_key_words(words) if "privkey" in words

_private_key_words(words) if {
	some i
	words[i] == "private"
	words[i + 1] == "key"
}

_env_file(b) if {
	_env_name(b)
	not _example(b)
}

_env_name(b) if b == ".env"

_env_name(b) if startswith(b, ".env.")

_env_name(b) if endswith(b, ".env")

# dotenv files other tools name otherwise (data.json's env_other_names, each with its source): `.dev.vars`,
# `.dev.vars.staging`
_env_name(b) if {
	some name in _cfg.env_other_names
	true in [b == name, startswith(b, concat("", [name, "."]))]
}

_example(b) if {
	some w in split(lower(b), ".")
	w in _cfg.env_example_words
}

_has_segment(p, seg) if endswith(p, seg)

_has_segment(p, seg) if contains(p, concat("", [seg, "/"]))

_basename(p) := parts[count(parts) - 1] if parts := split(p, "/")

_dirname(p) := concat("/", array.slice(parts, 0, count(parts) - 1)) if parts := split(p, "/")

# ---------------------------------------------------------------------------------------------
# The effect model (input.effects, docs/policies.md "The effect model"): a read by any program the
# catalogue knows to read (look, git diff --no-index, a copy's source, an upload, `tar c`, a command whose
# output is a credential such as `gh auth token`), whatever wraps it.
# ---------------------------------------------------------------------------------------------

# Behind one gate: a line whose effects read nothing (ls, npm test) never tries these rules.
_effect_reads := [e |
	input.tool.kind == "shell"
	input.event == "BeforeTool"
	some e in input.effects
	e.op in {"read", "copy", "move"}
]

deny contains v if {
	input.tool.kind == "shell"
	count(_effect_reads) > 0
	some v in _effect_read_deny
}

ask contains v if {
	input.tool.kind == "shell"
	count(_effect_reads) > 0
	some v in _effect_read_ask
}

_effect_read_deny contains {"id": m.id, "reason": _reason(e.path, e.program, m)} if {
	some e in _effect_reads
	not object.get(e, "guess", false)
	not object.get(e, "uses", false) # `ssh -i KEY`: the program authenticates with it, the model never sees it
	object.get(e, "shows", "") != "names" # `jq '.auths | keys' F`: a filter that prints names, never a value
	e.path != ""
	some m in _secret(e.path)
	not _public_lines(e, m)
}

# `grep '^VITE_' .env.local`: a filter that prints only the lines setting a variable the web framework publishes in
# the browser's copy of the app (the effect model's `public`, daemon/hookd/enrich/effects/public_lines.py). Only an
# env file's: a key or a credential store holds no such line to print.
_public_lines(e, m) if {
	m.id == "env-file"
	object.get(e, "public", false) == true
}

# A command whose output the catalogue says is a credential (`gh auth token`, `nix config show`: programs.json
# `prints_secret`), from a store no list here names as one (nix.conf holds settings besides its access-tokens):
# what it prints is the credential, whatever the store's path.
_effect_read_deny contains {"id": "credentials-file", "reason": reason} if {
	some e in _effect_reads
	object.get(e, "secret_output", false) == true
	object.get(e, "shows", "") != "names" # `… -o json | jq '.data | keys'`: its names reach the output, no value
	count(_secret(e.path)) == 0
	reason := sprintf("%s prints a credential it keeps in %s: it must not reach the model", [e.program, e.path])
}

# A program the catalogue does not know, handed a secret's path: it may read it (asked).
_effect_read_ask contains {"id": m.id, "reason": reason} if {
	some e in _effect_reads
	object.get(e, "guess", false) == true
	e.path != ""
	some m in _secret(e.path)
	reason := sprintf("%s is given %s, which holds %s; hookd does not know what it does with it: confirm it", [e.program, e.path, m.what])
}

# A file read whose name is only known when the shell runs (`cat $(printf '\x2eenv')`, `cat "$F"`): asked
# (unknown_reads in data.json: "ask", or "allow").
_effect_read_ask contains {"id": "unknown-read", "reason": reason} if {
	_cfg.unknown_reads == "ask"
	some e in _effect_reads
	e.known == false
	not _reads_a_program(e)
	reason := sprintf("%s reads %q, whose name is only known when the shell runs; confirm it", [e.program, e.raw])
}

# `file "$(which node)"`, `cp "$(command -v tool)" dist/`: what a search-path lookup finds (`installed`) is an installed
# program, no secret; the line did not set the search path to find it elsewhere (daemon/hookd/enrich/shell/outputs.py).
_reads_a_program(e) if {
	e.op in {"read", "copy"}
	object.get(e, "installed", "") != ""
}

# Everything under a home, an ancestor of one, or / read at once, by any program (`find ~ … | xargs cat`,
# `cp -r ~ …`, `tar c ~`): it reads every secret there.
_effect_read_deny contains {"id": "search-home", "reason": reason} if {
	some e in _effect_reads
	e.op in {"read", "copy"}
	e.recursive == true
	_home_or_above(e.path)
	reason := sprintf("%s reads all of %s, and with it the secrets there (keys, credentials, .env files)", [e.program, e.path])
}

# A whole directory read that holds a credential store of the home below it (`grep -r token ~/.config`, a
# search tool over `~/.config`): the secrets there are read with it; asked. (A home or above is denied.)
_effect_read_ask contains {"id": "search-secrets", "reason": _search_reason(e.program, e.path, what)} if {
	some e in _effect_reads
	e.recursive == true
	some what in _stores_in(e)
}

_tool_more_ask contains {"id": "search-secrets", "reason": _search_reason(_tool_name, e.path, what)} if {
	input.tool.kind == "read"
	input.event == "BeforeTool"
	some e in input.effects
	e.op == "read"
	e.recursive == true
	some what in _stores_below(e.path)
}

# The stores below a tree read whole that it may hold now: with the names at its top (`entries`, enrich/
# tree_entries.py: read when the call is decided, none when they cannot be), only a store below one of them; a
# path exists only where its parents do.
_stores_in(e) := _stores_below(e.path) if not "entries" in object.keys(e)

_stores_in(e) := {what |
	home := trim_suffix(input.home, "/")
	prefix := concat("", [e.path, "/"])
	some [tail, what] in _home_stores
	store := concat("", [home, tail])
	startswith(store, prefix)
	split(trim_prefix(store, prefix), "/")[0] in {name | some name in e.entries}
	what in _stores_below(e.path)
} if "entries" in object.keys(e)

_search_reason(via, path, what) := sprintf("%s reads all of %s, which holds %s; confirm it", [via, path, what])

# A store lies below p only when its path's first part under the home is p's: data.json's home_store_roots (the
# first part of every store `_home_stores` holds; test_home_store_roots keeps it so) is looked up before the set
# of stores is built, which costs regorus ~100 µs at each call (a search of a project under the home reaches here).
_stores_below(p) := {what |
	home := trim_suffix(input.home, "/")
	startswith(p, concat("", [home, "/"]))
	split(trim_prefix(p, home), "/")[1] in data.secret_reads.home_store_roots
	prefix := concat("", [p, "/"])
	some [tail, what] in _home_stores
	startswith(concat("", [home, tail]), prefix)
}

_home_stores := {[e.segment, e.what] | some e in data.secret_reads.credential_dirs} | {[e.suffix, e.what] |
	some e in array.concat(data.secret_reads.credential_files, data.secret_reads.credential_containers)
	startswith(e.suffix, "/.")
}

# The cloud instance metadata service (a fetch of a link-local address or a metadata host name: the effect
# model's `metadata`): it hands out the machine's cloud credentials (MITRE ATT&CK T1552.005); asked.
_effect_read_ask contains {"id": "cloud-metadata", "reason": reason} if {
	some e in _effect_reads
	object.get(e, "metadata", false) == true
	reason := sprintf("%s asks the cloud instance metadata service (%s), which hands out this machine's credentials; confirm it", [e.program, e.url])
}

# A local admin or credential service (Docker's Engine API, the kubelet, Consul…: the effect model's `admin`): asked.
_effect_read_ask contains {"id": "local-admin", "reason": reason} if {
	some e in _effect_reads
	object.get(e, "admin", "") != ""
	reason := sprintf("%s asks %s on this machine (%s), which hands out its secrets or runs code; confirm it", [e.program, e.admin, e.url])
}

# A whole tree sent to another host (`tar cz . | curl -T - URL`, `zip -r - . | nc host port`): the project
# may hold secrets (.env files, keys) that no single read shows; asked. (A home or above is denied above.)
_effect_read_ask contains {"id": "send-tree", "reason": reason} if {
	some e in _effect_reads
	object.get(e, "sent", false) == true
	reason := sprintf("%s sends all of %s to another host; it may hold secrets (.env files, keys): confirm it", [e.program, e.path])
}

# A read (a copy, a move, a search) of a file in a home dot-tree that no rule above names, whose first bytes
# hold a credential by their shape (a `token`/`password`/`secretKey` key with a real value, a private key, a
# token prefix: the effect model's `holds`, daemon/hookd/enrich/holdings.py): a credential store no list names
# (glab's config.yml, ~/.databrickscfg, ngrok.yml); asked. Read when the call is decided (a file that changes
# after that is not seen).
ask contains {"id": "credential-content", "reason": reason} if {
	input.event == "BeforeTool"
	some e in input.effects
	object.get(e, "holds", "") == "credential"
	e.op in {"read", "copy", "move"}
	count(_secret(e.path)) == 0
	count(_stores_below(e.path)) == 0
	reason := sprintf("%s reads %s, which holds what looks like a credential (a token, password or key); confirm it", [e.program, e.path])
}
