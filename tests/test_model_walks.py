"""Walks of the model written for speed (bot/model): the .gitignore patterns matched at once
(kustomize._Ignore). Each is compared with its plain definition, here, on generated input."""

from __future__ import annotations

import fnmatch

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.model.kustomize import _Ignore


def _reference_ignored(rel: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        anchored = pattern.strip("/")
        if "/" in anchored:
            if fnmatch.fnmatchcase(rel, anchored) or rel.startswith(anchored + "/"):
                return True
        elif any(fnmatch.fnmatchcase(part, anchored) for part in rel.split("/")):
            return True
    return False


_GLOBS = st.lists(st.sampled_from(["a", "b", "*", "?", "[ab]", "[!a]", "/", ".", "**", "\\",
                                   "(", "|", "{", "[", "]", ".yaml", "x*y"]),
                  min_size=1, max_size=4).map("".join)
_PATHS = st.lists(st.sampled_from(["a", "b", "ab", "x.yaml", "xy", "(", "|", "[", "\\", ".", ""]),
                  min_size=1, max_size=3).map("/".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(_GLOBS, max_size=5), st.lists(_PATHS, min_size=1, max_size=5))
def test_gitignore_patterns_matched_at_once_match_as_each_does(
        patterns: list[str], paths: list[str]) -> None:
    ignore = _Ignore("", patterns)
    for rel in paths:
        assert ignore.ignores(rel) == _reference_ignored(rel, patterns), (rel, patterns)
