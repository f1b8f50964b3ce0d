package hookd.diff.strings

routing := {"events": ["BeforeTool", "BeforeAgent"]}

_s := object.get(input.tool.input, "command", object.get(input.tool.input, "file_path", "")) if input.tool

_s := object.get(input.raw, "prompt", "") if not input.tool

context contains {"id": "strings", "text": "strings", "v": v} if {
	is_string(_s)
	v := {
		"lower": lower(_s),
		"upper": upper(_s),
		"trim_space": trim_space(_s),
		"count": count(_s),
		"split": split(_s, " "),
		"concat": concat("|", split(_s, "/")),
		"replace": replace(_s, "-", "_"),
		"indexof": indexof(_s, "r"),
		"indexof_n": indexof_n(_s, "/"),
		"substring": substring(_s, 1, 5),
		"substring_tail": substring(_s, 3, -1),
		"startswith": startswith(_s, "rm"),
		"endswith": endswith(_s, ".env"),
		"contains": contains(_s, ".."),
		"trim": trim(_s, " ./"),
		"trim_left": trim_left(_s, "./"),
		"trim_right": trim_right(_s, "/ "),
		"trim_prefix": trim_prefix(_s, "/"),
		"trim_suffix": trim_suffix(_s, "/"),
		"sprintf": sprintf("%s:%d:%v:%q", [_s, count(_s), startswith(_s, "g"), _s]),
		"format_int": format_int(count(_s), 16),
		"reverse": strings.reverse(_s),
		"replace_n": strings.replace_n({"a": "A", "e": "E", "/": "//"}, _s),
		"any_prefix": strings.any_prefix_match(_s, ["git", "rm", "/etc"]),
		"any_suffix": strings.any_suffix_match(_s, [".env", ".pem", "/"]),
		"count_sub": strings.count(_s, "/"),
		"to_number": _number(_s),
	}
}

_number(s) := to_number(s) if regex.match(`^-?[0-9]{1,9}(\.[0-9]{1,6})?$`, s)

else := null
