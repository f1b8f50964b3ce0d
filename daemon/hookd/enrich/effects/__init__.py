"""The effect model: what a tool call does (`input.effects`, docs/policies.md "The effect model").

Modules: `catalogue` (data/*.json: which programs read, write, delete, run a command or code they are
handed, take a device, send signals; with their sources), `options` (GNU option parsing with long-option
prefixes and clustered short options), `launchers` (where a launcher's command starts), `gitops` (git's
executing configuration and options), `entries` (what an entry says a program does beyond its operands:
builds, grants, settings run later, removals by name), `model` (the effects of each command, and the flows
within a line: a file written or downloaded, then run), `words` (the model's constants and small helpers).
The shell builder (hookd.enrich.shell.build) feeds the model every command it walks; effects of agents'
file tools come from hookd.enrich.tool_effects.
"""
