package hookd.diff.glob

routing := {"events": ["BeforeTool"]}

_p := object.get(input.tool.input, "file_path", object.get(input.tool.input, "command", ""))

context contains {"id": "glob", "text": "glob", "v": v} if {
	is_string(_p)
	v := {
		"env": glob.match("**/.env*", ["/"], _p),
		"env_default": glob.match("*.env", [], _p),
		"ssh": glob.match("**/.ssh/**", ["/"], _p),
		"star_no_sep": glob.match("*", [], _p),
		"star_sep": glob.match("*", ["/"], _p),
		"class": glob.match("[a-c]*", [], _p),
		"alt": glob.match("{*.pem,*.key,id_*}", ["/"], _p),
		"question": glob.match("/???/*", ["/"], _p),
		"quote": glob.quote_meta(regex.replace(_p, `[\\{}]`, "")),
	}
}
