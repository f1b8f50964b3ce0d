package hookd.secret_moves

test_a_carried_secret_is_denied_naming_its_store if {
	some v in deny with input as {"event": "BeforeTool", "tool": {"kind": "write", "name": "Write"}, "carried_secrets": [{"file": "/h/.aws/credentials", "values": 2}]}
	contains(v.reason, "/h/.aws/credentials")
}

test_no_carried_secret_passes if {
	count(deny) == 0 with input as {"event": "BeforeTool", "tool": {"kind": "web", "name": "WebFetch"}}
	count(deny) == 0 with input as {"event": "BeforeTool", "tool": {"kind": "mcp", "name": "x"}, "carried_secrets": []}
}

test_text_past_the_decoded_bound_is_asked_not_denied if {
	inp := {"event": "BeforeTool", "tool": {"kind": "mcp", "name": "post"}, "carried_secrets": [{"file": "", "values": 0, "undecoded": 70000}]}
	count(deny) == 0 with input as inp
	some v in ask with input as inp
	v.id == "secret-moved-unread"
	contains(v.reason, "70000 characters")
}

test_a_secret_found_beside_undecoded_text_is_still_denied if {
	inp := {"event": "BeforeTool", "tool": {"kind": "write", "name": "Write"}, "carried_secrets": [{"file": "/h/.netrc", "values": 1}, {"file": "", "values": 0, "undecoded": 5}]}
	some v in deny with input as inp
	contains(v.reason, "/h/.netrc")
}
