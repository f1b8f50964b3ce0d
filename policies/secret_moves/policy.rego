# Secrets moved: a call whose own text carries a secret of this machine (input.carried_secrets,
# daemon/hookd/enrich/carried_secrets.py: a value that one of the home's credential files, ~/.ssh's private keys
# or the project's .env files holds now, written as is, percent-encoded or inside base64). A write puts it into a
# file that will be committed or served (a fixture, the README, an inlined setting, public/); a web tool's URL
# hands it to the host it names; an MCP server's tool publishes it (an issue, a pull request, a chat message, a
# commit's files). Whichever, the secret leaves its store; secret_reads stops reading it, this stops moving it.
# The values are never named here, nor in the reason: only the store they came from.
package hookd.secret_moves

routing := {
	"events": ["BeforeTool"],
	"kinds": ["write", "edit", "web", "mcp", "other"],
	"facts": ["carried_secrets"],
}

deny contains {"id": "secret-moved", "reason": reason} if {
	input.event == "BeforeTool"
	some c in input.carried_secrets
	not c.undecoded
	reason := sprintf("%s carries a secret that %s holds %s; it must not leave its store", [_tool_name, c.file, _where])
}

# Past the first MiB of one string the text is searched as written only (decoding more would cost seconds); what an
# encoding there carries is not known, so it is asked. A model does not write a megabyte in one call's text.
ask contains {"id": "secret-moved-unread", "reason": reason} if {
	input.event == "BeforeTool"
	some c in input.carried_secrets
	c.undecoded > 0
	reason := sprintf("%s gives %d characters past the first MiB hookd decodes, and this machine holds secrets; whether an encoding there carries one is not known", [_tool_name, c.undecoded])
}

_where := "into a file" if input.tool.kind in {"write", "edit"}

_where := "to the address it opens" if input.tool.kind == "web"

_where := "to the tool's service" if input.tool.kind in {"mcp", "other"}

_tool_name := input.tool.name if {
	is_string(input.tool.name)
} else := "the tool"
