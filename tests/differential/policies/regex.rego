package hookd.diff.regex

routing := {"events": ["BeforeTool"]}

_s := object.get(input.tool.input, "command", object.get(input.tool.input, "file_path", ""))

context contains {"id": "regex", "text": "regex", "v": v} if {
	is_string(_s)
	v := {
		"match": regex.match(`^[a-z]+\s`, _s),
		"match_ci": regex.match(`(?i)^GIT\b`, _s),
		"find_n": regex.find_n(`[0-9]+`, _s, -1),
		"find_2": regex.find_n(`[a-z]+`, _s, 2),
		"split": regex.split(`[/ ]+`, _s),
		"replace": regex.replace(_s, `[aeiou]`, "*"),
		"replace_group": regex.replace(_s, `([a-z]+)=([0-9]+)`, "$2=$1"),
		"submatch": regex.find_all_string_submatch_n(`([a-z]+)=([0-9]*)`, _s, -1),
		"valid_bad": regex.is_valid(`(`),
		"valid_good": regex.is_valid(`^a+$`),
		"template": regex.template_match(`urn:{[a-z]+}:x`, concat(":", ["urn", lower(substring(_s, 0, 3)), "x"]), "{", "}"),
		"unicode": regex.match(`^\p{L}+$`, _s),
	}
}
