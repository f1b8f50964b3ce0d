package hookd.model_secrets

test_a_key_split_across_chunks_stops_the_turn if {
	count(halt) == 1 with input as {"event": "AfterModel", "stream": {"text": "here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl", "chunk": "ATE KEY-----\nb3Bl"}}
}

test_ordinary_text_passes if {
	count(halt) == 0 with input as {"event": "AfterModel", "stream": {"text": "Use ssh-keygen to make a PRIVATE KEY-----like file; AKIA is a prefix.", "chunk": "x"}}
}

test_every_pattern_holds_its_literals if {
	every p in data.model_secrets.patterns {
		every l in p.literals {
			contains(p.regex, l)
		}
	}
}

test_a_github_token_is_found_by_its_prefix_and_code_with_underscores_passes if {
	count(halt) == 1 with input as {"event": "AfterModel", "stream": {"text": "token: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu", "chunk": "u"}}
	count(halt) == 0 with input as {"event": "AfterModel", "stream": {"text": "def read_config(file_path): return load_yaml(file_path)", "chunk": ")"}}
}
