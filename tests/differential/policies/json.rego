package hookd.diff.json

routing := {"events": ["BeforeTool"]}

_s := object.get(input.tool.input, "command", object.get(input.tool.input, "file_path", ""))

_doc := {"s": _s, "n": count(_s), "list": split(_s, " "), "nested": {"z": 1, "a": [true, null]}}

context contains {"id": "json", "text": "json", "v": v} if {
	is_string(_s)
	v := {
		"marshal": json.marshal(object.union(_doc, {"s": regex.replace(_s, `[<>&]`, ""), "list": []})),
		"roundtrip": json.unmarshal(json.marshal(_doc)),
		"is_valid": json.is_valid(_s),
		"parsed": _parsed,
		"filter": json.filter(_doc, ["nested/a", "s"]),
		"remove": json.remove(_doc, ["nested", "list"]),
		"patch": json.patch(_doc, [{"op": "add", "path": "/added", "value": _s}, {"op": "remove", "path": "/n"}]),
		"base64": base64.encode(_s),
		"base64_back": base64.decode(base64.encode(_s)),
		"base64url": base64url.encode_no_pad(_s),
		"hex": hex.encode(_s),
		"urlquery": urlquery.encode(_plain),
		"urlquery_object": urlquery.encode_object({"q": _plain, "n": "1"}),
	}
}

_parsed := json.unmarshal(_s) if json.is_valid(_s)

else := "invalid"

# without ~ and *, which the engines escape differently (docs/policies.md, "Engine gaps")
_plain := regex.replace(_s, `[~*]`, "")
