# Secrets in what the model writes: the turn is stopped when the text streamed so far in this
# response (input.stream.text, hookd.enrich.stream) holds a credential (a private key block, a cloud or
# forge token): a secret split across two AfterModel chunks is caught in the chunk that completes it,
# before that chunk reaches the user or the transcript. Patterns live in data.json
# (data.model_secrets.patterns: an id, what it is, a regex).
package hookd.model_secrets

# It reads the streamed text alone: the conversation each chunk's request carries is not handed to it. Every
# halt needs a pattern's literal in the text (below): a chunk whose text holds none is not evaluated at all
# (`stream_text`, docs/policies.md), the literals taken from the same data as the rule's.
routing := {
	"events": ["AfterModel"],
	"input": ["event", "stream"],
	"stream_text": [l | some p in data.model_secrets.patterns; some l in p.literals],
}

halt contains {"id": p.id, "reason": reason} if {
	input.event == "AfterModel"
	text := input.stream.text
	some p in data.model_secrets.patterns
	some l in p.literals
	contains(text, l) # every match holds one: the regex runs only after it
	regex.match(p.regex, text)
	reason := sprintf("the model's response holds %s; the turn was stopped before it was shown", [p.what])
}
