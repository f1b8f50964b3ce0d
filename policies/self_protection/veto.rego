# The second line of self-protection, where an agent asks before it applies a change to its settings
# (Claude Code's ConfigChange): a change made outside a guarded tool call (a script, a build step, a worm
# riding the agent) that would switch hookd's hooks off, or remove one from every scope, is kept out of the
# running session. The daemon reads the agent's settings as they are on disk now and says why they would no
# longer run hookd's hooks (input.hookd.unguarded; "" when they would: daemon/hookd/selfprotect.py).
package hookd.settings_veto

routing := {"events": ["Other"]}

deny contains {"id": "hookd-self-protection", "reason": reason} if {
	why := input.hookd.unguarded
	why != ""
	reason := sprintf("this settings change is kept out: %s", [why])
}
