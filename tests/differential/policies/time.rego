package hookd.diff.time

routing := {"events": ["BeforeTool"]}

_when := object.get(input.tool.input, "when", "")

_rfc3339 := `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$`

context contains {"id": "time", "text": "time", "v": v} if {
	regex.match(_rfc3339, _when)
	ns := time.parse_rfc3339_ns(_when)
	v := {
		"ns": ns,
		"date": time.date(ns),
		"clock": time.clock(ns),
		"weekday": time.weekday(ns),
		"date_utc": time.date([ns, "UTC"]),
		"add_date": _add_date(ns),
		"diff": time.diff(ns, 0),
		"format": time.format(ns - (ns % 1000000000)),
		"duration": time.parse_duration_ns("1h30m15s"),
		"older_than_2000": ns < time.parse_rfc3339_ns("2000-01-01T00:00:00Z"),
		"parse_ns": time.parse_ns("2006-01-02", substring(_when, 0, 10)),
	}
}

# only where no month-end overflow happens (docs/policies.md, "Engine gaps")
_add_date(ns) := time.add_date(ns, 1, -2, 3) if time.date(ns)[2] <= 28

else := null
