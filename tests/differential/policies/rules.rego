package hookd.diff.rules

routing := {"events": ["BeforeTool"], "kinds": ["shell"]}

_commands := input.shell.commands

# else chains: the first body that holds decides
_level(n) := "many" if n > 3

else := "some" if n > 1

else := "one" if n == 1

else := "none"

_risk := "root" if {
	some c in _commands
	c.name == "sudo"
} else := "privileged" if {
	some c in _commands
	c.sudo == true
} else := "plain"

deny contains {"id": "every-rm", "reason": sprintf("every command is rm (%d)", [count(_commands)])} if {
	count(_commands) > 1
	every c in _commands {
		c.name == "rm"
	}
}

ask contains sprintf("%s: %s", [_risk, concat(",", _names)]) if {
	_risk != "plain"
}

_names := [c.name | some c in _commands]

context contains {"id": "rules", "text": "rules", "v": v} if {
	v := {
		"level": _level(count(_commands)),
		"risk": _risk,
		"names": _names,
		"by_name": {name: count([1 | some c in _commands; c.name == name]) | some name in _names},
		"args": [count(c.args) | some c in _commands],
		"flags": {f | some c in _commands; some f in c.args; is_string(f); startswith(f, "-")},
	}
}
