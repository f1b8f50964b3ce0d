"""A line filter that prints only the lines assigning a framework's public variables: `grep '^VITE_' .env.local`
(GNU grep's manual, https://www.gnu.org/software/grep/manual/grep.html: each pattern is matched against each line
and only matching lines are printed). Every pattern is anchored at the line's start (`^`) and begins with a public
prefix (PUBLIC_PREFIXES) that nothing after it can make optional, with no alternation or
group; every option only chooses how matches are shown. Any option that prints other lines or matches otherwise
(`-v`, context `-A/-B/-C/-NUM`, `-i`, `-F` where `^` is a plain character, `-z` where the file is one line, `-f`
whose patterns hookd does not read, `-r`) or one this table does not know leaves the read a read of the whole file."""

from __future__ import annotations

import re

# grep and egrep (grep -E); fgrep matches fixed strings, where `^` anchors nothing.
_FILTERS = frozenset({"grep", "egrep"})
_FLAGS = frozenset("HhnclLoEGPwxsqbTZUaI")  # how matches are shown, and the regular-expression dialects
_VALUED = frozenset("em")  # -e PATTERN, -m NUM
_LONG = frozenset({
    "--with-filename", "--no-filename", "--line-number", "--count", "--files-with-matches", "--files-without-match",
    "--only-matching", "--extended-regexp", "--basic-regexp", "--perl-regexp", "--word-regexp", "--line-regexp",
    "--no-messages", "--quiet", "--silent", "--byte-offset", "--initial-tab", "--null", "--binary", "--text",
    "--color", "--colour", "--max-count", "--regexp",
})  # fmt: skip
_LONG_VALUED = frozenset({"--max-count", "--regexp"})
# The name prefixes a web framework inlines into the code it ships to the browser: a variable so named is public by
# the framework's own documentation (its value is in every visitor's copy of the app) and is read by the app's client
# code only, never a tool's setting. Vite `VITE_` (https://vite.dev/guide/env-and-mode), Next.js `NEXT_PUBLIC_`
# (https://nextjs.org/docs/app/building-your-application/configuring/environment-variables), Astro and SvelteKit
# `PUBLIC_` (https://docs.astro.build/en/guides/environment-variables/, https://svelte.dev/docs/kit/$env-static-public),
# Create React App `REACT_APP_` (https://create-react-app.dev/docs/adding-custom-environment-variables/), Expo
# `EXPO_PUBLIC_` (https://docs.expo.dev/guides/environment-variables/), Nuxt `NUXT_PUBLIC_`
# (https://nuxt.com/docs/guide/going-further/runtime-config), Gatsby `GATSBY_`
# (https://www.gatsbyjs.com/docs/how-to/local-development/environment-variables/), Vue CLI `VUE_APP_`
# (https://cli.vuejs.org/guide/mode-and-env.html).
PUBLIC_PREFIXES = (
    "VITE_", "NEXT_PUBLIC_", "PUBLIC_", "REACT_APP_", "EXPO_PUBLIC_", "NUXT_PUBLIC_", "GATSBY_", "VUE_APP_",
)  # fmt: skip
_PATTERN = re.compile(rf"\^(?:{'|'.join(map(re.escape, PUBLIC_PREFIXES))})(?![*?+{{])[^|\\(){{}}\n]*")


def public_lines(name: str, argv: list[str]) -> bool:
    """`argv` runs a line filter whose every pattern only matches lines that set a public variable."""
    if name not in _FILTERS:
        return False
    patterns = _patterns(argv[1:])
    return bool(patterns) and all(_PATTERN.fullmatch(p) for p in patterns or ())


def _patterns(words: list[str]) -> list[str] | None:
    """The patterns of grep's words (its -e values, else its first operand); None for an option not known here."""
    given: list[str] = []
    operands: list[str] = []
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "--":
            operands.extend(words[k:])
            break
        if word.startswith("--"):
            option, eq, value = word.partition("=")
            if option not in _LONG:
                return None
            if option in _LONG_VALUED and not eq:
                if k >= len(words):
                    return None
                value, k = words[k], k + 1
            if option == "--regexp":
                given.append(value)
        elif word.startswith("-") and len(word) > 1:
            found = _cluster(word[1:], words, k)
            if found is None:
                return None
            pattern, k = found
            if pattern is not None:
                given.append(pattern)
        else:
            operands.append(word)
    return given or operands[:1]


def _cluster(letters: str, words: list[str], k: int) -> tuple[str | None, int] | None:
    """(the pattern a short cluster gives, if any; the next word's index), None for a letter not known here."""
    for j, letter in enumerate(letters):
        if letter in _VALUED:
            value = letters[j + 1 :]
            if not value:
                if k >= len(words):
                    return None
                value, k = words[k], k + 1
            return (value if letter == "e" else None), k
        if letter not in _FLAGS:
            return None
    return None, k
