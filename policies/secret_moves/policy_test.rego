package hookd.secret_moves

test_a_carried_secret_is_denied_naming_its_store if {
	some v in deny with input as {"event": "BeforeTool", "tool": {"kind": "write", "name": "Write"}, "carried_secrets": [{"file": "/h/.aws/credentials", "values": 2}]}
	contains(v.reason, "/h/.aws/credentials")
}

test_no_carried_secret_passes if {
	count(deny) == 0 with input as {"event": "BeforeTool", "tool": {"kind": "web", "name": "WebFetch"}}
	count(deny) == 0 with input as {"event": "BeforeTool", "tool": {"kind": "mcp", "name": "x"}, "carried_secrets": []}
}
