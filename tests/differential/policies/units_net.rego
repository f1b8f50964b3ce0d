package hookd.diff.units_net

routing := {"events": ["BeforeTool"]}

_size := object.get(input.tool.input, "size", "")

_ip := object.get(input.tool.input, "ip", "")

context contains {"id": "units", "text": "units", "v": v} if {
	regex.match(`^[0-9]{1,6}(\.[0-9]{1,3})?(|k|K|m|M|g|G|Ki|Mi|Gi|KB|MB|GB|KiB|MiB|GiB|kb|mb|gb)$`, _size)
	v := {
		"bytes": units.parse_bytes(_size),
		"parse": units.parse(trim_suffix(trim_suffix(_size, "B"), "b")),
	}
}

context contains {"id": "net", "text": "net", "v": v} if {
	net.cidr_is_valid(sprintf("%s/32", [_ip]))
	v := {
		"private": net.cidr_contains("10.0.0.0/8", _ip),
		"loopback": net.cidr_contains("127.0.0.0/8", _ip),
		"in_192": net.cidr_contains("192.168.0.0/16", _ip),
		"expand": count(net.cidr_expand(sprintf("%s/30", [_ip]))),
	}
}
