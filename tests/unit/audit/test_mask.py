"""Masking: erase, mask, cut, and redact secrets, without touching the input."""

from __future__ import annotations

import copy

import pytest

from hookd.audit.mask import Masker
from hookd.config import LogConfig

SECRETS = [
    ("AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws_access_key]"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED:aws_secret_key]"),  # noqa: E501
    ("token ghp_" + "a" * 36 + " end", "token [REDACTED:github_token] end"),
    ("github_pat_" + "B" * 30, "[REDACTED:github_token]"),
    ("xoxb-123456789012-abcdefghij", "[REDACTED:slack_token]"),
    ("AIza" + "c" * 35, "[REDACTED:google_api_key]"),
    ("key sk-ant-" + "d" * 30, "key [REDACTED:api_key]"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nafter", "[REDACTED:private_key]\nafter"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\ncut off", "[REDACTED:private_key]"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "[REDACTED:jwt]"),
    ('curl -H "Authorization: Bearer abcdefghijklmnop123"', 'curl -H "Authorization: Bearer [REDACTED:bearer]"'),
    ("git clone https://bob:hunter2@example.com/r.git", "git clone https://bob:[REDACTED:url_password]@example.com/r.git"),
    ("mysql --password=s3cr3t! -u root", "mysql --password=[REDACTED:password] -u root"),
    ("DB_PASSWORD='hunter22' ./run", "DB_PASSWORD='[REDACTED:password]' ./run"),
    ("api_key: abcd1234", "api_key: [REDACTED:password]"),
]  # fmt: skip


class TestRedact:
    @pytest.mark.parametrize(("text", "expected"), SECRETS)
    def test_builtin_patterns(self, text: str, expected: str) -> None:
        assert Masker().redact(text) == expected

    @pytest.mark.parametrize(
        "text", ["git status", "rm -rf build", "my password is long", "see tokens.md", "AKIA-not-a-key", "eyJ only"]
    )
    def test_ordinary_text_is_left_alone(self, text: str) -> None:
        assert Masker().redact(text) == text

    def test_extra_patterns_and_builtins_off(self) -> None:
        masker = Masker(builtin_secrets=False, secret_patterns=[r"ACME-[0-9a-f]{8}"])
        assert masker.redact("id ACME-deadbeef and AKIAIOSFODNN7EXAMPLE") == (
            "id [REDACTED:custom_1] and AKIAIOSFODNN7EXAMPLE"
        )

    def test_only_the_patterns_a_text_can_match_are_run_and_they_match_as_all_of_them_would(self) -> None:
        """A text is searched with the built-in patterns whose words it holds, in their order: the leftmost
        match of the first pattern still wins (a bearer token that is a JWT stays a bearer token)."""
        jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
        assert Masker().redact(f"Authorization: Bearer {jwt} and {jwt}") == (
            "Authorization: Bearer [REDACTED:bearer] and [REDACTED:jwt]"
        )
        assert Masker().redact("token=abc123 see https://u:p4ss@h/x") == (
            "token=[REDACTED:password] see https://u:[REDACTED:url_password]@h/x"
        )

    def test_a_non_ascii_text_is_searched_with_every_pattern(self) -> None:
        """`(?i)` matches the long s (U+017F) as an s, which lower() keeps: the words of a non-ASCII text do not
        say which patterns can match it, so all of them run (here the AWS secret pattern, not `password`)."""
        text = "aws_\u017fecret_access_key = " + "A" * 40
        assert Masker().redact(text) == "aws_\u017fecret_access_key = [REDACTED:aws_secret_key]"

    def test_values_of_secret_named_keys_are_redacted_whole(self) -> None:
        out = Masker()({"env": {"API_KEY": "abc", "GITHUB_TOKEN": "x", "password": "p", "count": 3, "path": "/x"}})
        assert out == {
            "env": {
                "API_KEY": "[REDACTED:key]",
                "GITHUB_TOKEN": "[REDACTED:key]",
                "password": "[REDACTED:key]",
                "count": 3,
                "path": "/x",
            }
        }


class TestPaths:
    def test_mask_cuts_every_string_under_the_path(self) -> None:
        masker = Masker(mask=["raw.tool_response"], mask_length=4)
        doc = {"raw": {"tool_response": {"llmContent": "abcdefgh", "parts": ["123456"]}, "prompt": "abcdefgh"}}
        assert masker(doc) == {
            "raw": {
                "tool_response": {"llmContent": "abcd…[+4 chars]", "parts": ["1234…[+2 chars]"]},
                "prompt": "abcdefgh",
            }
        }

    def test_erase_summarises(self) -> None:
        masker = Masker(erase=["raw.llm_request.messages", "raw.blob", "raw.n"])
        doc = {"raw": {"llm_request": {"messages": [1, 2, 3], "model": "m"}, "blob": "x" * 9, "n": 4}}
        assert masker(doc) == {
            "raw": {
                "llm_request": {"messages": "[erased: array of 3 items]", "model": "m"},
                "blob": "[erased: string of 9 chars]",
                "n": "[erased: int]",
            }
        }

    def test_star_matches_any_key_and_arrays_are_transparent(self) -> None:
        masker = Masker(mask=["raw.*.content", "raw.messages.text"], mask_length=2)
        doc = {
            "raw": {"a": {"content": "xyz"}, "b": {"content": "uvw", "other": "uvw"}, "messages": [{"text": "hello"}]}
        }
        assert masker(doc) == {
            "raw": {
                "a": {"content": "xy…[+1 chars]"},
                "b": {"content": "uv…[+1 chars]", "other": "uvw"},
                "messages": [{"text": "he…[+3 chars]"}],
            }
        }

    def test_every_other_string_is_cut_to_the_maximum(self) -> None:
        assert Masker(max_string_length=3)({"a": ["abcdef"], "b": 1.5, "c": None, "d": True}) == {
            "a": ["abc…[+3 chars]"],
            "b": 1.5,
            "c": None,
            "d": True,
        }

    def test_secrets_are_redacted_before_cutting(self) -> None:
        out = Masker(mask=["raw.prompt"], mask_length=12)({"raw": {"prompt": "AKIAIOSFODNN7EXAMPLE and more"}})
        assert out == {"raw": {"prompt": "[REDACTED:aw…[+22 chars]"}}

    def test_the_input_is_not_changed(self) -> None:
        doc = {"raw": {"tool_input": {"content": "x" * 1000}}, "tool": {"input": {"content": "AKIAIOSFODNN7EXAMPLE"}}}
        before = copy.deepcopy(doc)
        Masker.from_config(LogConfig())(doc)
        assert doc == before

    def test_defaults_cut_file_contents_in_both_places(self) -> None:
        masker = Masker.from_config(LogConfig())
        doc = {
            "tool": {"input": {"file_path": "a", "content": "y" * 300}},
            "raw": {"tool_input": {"file_path": "a", "content": "y" * 300}, "prompt": "p" * 300},
        }
        out = masker(doc)
        cut = "y" * 256 + "…[+44 chars]"
        assert out["tool"]["input"] == {"file_path": "a", "content": cut}
        assert out["raw"]["tool_input"] == {"file_path": "a", "content": cut}
        assert out["raw"]["prompt"] == "p" * 256 + "…[+44 chars]"


class TestLongTexts:
    """A long text is searched for secrets only as far as can be kept (plus a window): masking a 10 MB file
    that mentions `key` once cost seconds of the event loop. What is kept is what it always was."""

    @staticmethod
    def old_way(masker: Masker, value: str, limit: int) -> str:
        redacted = masker.redact(value)
        return redacted if len(redacted) <= limit else redacted[:limit]

    @pytest.mark.parametrize(
        "value",
        [
            "api_key = abcd1234\n" + "key = 1\n" * 1_000_000,
            "x" * 4_089 + " ghp_" + "a" * 40 + "y" * 20_000,  # a secret across the cut: redacted as before
            "x" * 4_000 + "-----BEGIN RSA PRIVATE KEY-----\n" + "M" * 30_000 + "\n-----END RSA PRIVATE KEY-----",
            "x" * 100 + " Bearer " + "b" * 50_000,  # a secret longer than the window: still redacted
            "plain " * 3_000,
        ],
    )
    def test_the_kept_part_is_redacted_as_when_the_whole_was_searched(self, value: str) -> None:
        masker = Masker()
        out = masker.text(value)
        kept, _, count = out.partition("…[+")
        assert kept == self.old_way(masker, value, 4096)[: len(kept)]
        assert "ghp_" not in kept and "bbbbbbbbbbbbbbbbbbbb" not in kept and "MMMMMMMMMM" not in kept
        assert count.endswith(" chars]") and int(count.removesuffix(" chars]")) > 0

    def test_only_the_kept_part_and_its_window_are_searched(self) -> None:
        masker = Masker(secret_patterns=["never-there"])
        seen: list[int] = []
        real = masker._custom
        assert real is not None

        class Recording:
            def sub(self, repl: object, text: str) -> str:
                seen.append(len(text))
                return real.sub(repl, text)  # type: ignore[arg-type]

        masker._custom = Recording()  # type: ignore[assignment]
        out = masker({"raw": {"tool_input": {"content": "token " * 2_000_000}}})
        assert out["raw"]["tool_input"]["content"].endswith("…[+11995904 chars]")
        assert seen and max(seen) <= 4096 + 4096  # the old code searched all 12,000,000 characters
