package hookd.diff.collections

routing := {"events": ["BeforeTool"]}

_s := object.get(input.tool.input, "command", object.get(input.tool.input, "file_path", ""))

_words := {w | some w in split(_s, " "); w != ""}

_parts := {p | some p in split(_s, "/"); p != ""}

_counts := {w: count([x | some x in split(_s, " "); x == w]) | some w in _words}

_numbers := [to_number(n) | some n in regex.find_n(`[0-9]{1,6}`, _s, -1)]

context contains {"id": "collections", "text": "collections", "v": v} if {
	is_string(_s)
	v := {
		"union": sort(_words | _parts),
		"intersection": sort(_words & _parts),
		"difference": sort(_words - _parts),
		"sets_union": sort(union({_words, _parts, {"x"}})),
		"sets_intersection": sort(intersection({_words, _parts})),
		"counts": _counts,
		"keys": sort(object.keys(_counts)),
		"get": object.get(_counts, "rm", 0),
		"get_path": object.get({"a": {"b": _s}}, ["a", "b"], "none"),
		"object_union": object.union({"a": {"b": 1, "c": [1]}, "d": 1}, {"a": {"b": count(_s)}, "e": _s}),
		"object_union_n": object.union_n([{"a": 1}, {"a": {"b": 2}}, {"c": count(_words)}]),
		"remove": object.remove(_counts, ["rm", "git"]),
		"filter": object.filter(_counts, ["ls", "cat"]),
		"subset": object.subset({"a": 1, "b": 2}, {"a": 1}),
		"sum": sum(_numbers),
		"max": max(array.concat(_numbers, [0])),
		"min": min(array.concat(_numbers, [999999])),
		"product": product([count(_words), 2]),
		"sorted": sort(_numbers),
		"slice": array.slice(split(_s, " "), 1, 3),
		"reverse": array.reverse(split(_s, "/")),
		"range": numbers.range(0, count(_words) % 5),
		"any": "sudo" in _words,
		"every_short": every_short,
		"comprehension_nested": [[i, w] | some i, w in split(_s, " "); count(w) > 3],
		"arith": [count(_s) / 4, count(_s) % 7, (count(_s) * 3) - 1, round(count(_s) / 3), ceil(count(_s) / 3), floor(count(_s) / 3), abs(0 - count(_s))],
		"type": [type_name(_words), type_name(_counts), type_name(_numbers), type_name(null)],
	}
}

every_short if {
	every w in _words {
		count(w) < 8
	}
}

default every_short := false
