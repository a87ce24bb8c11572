"""Every error reviewbot reports on the twelve corpus repositories is listed, with its reason
and verdict, in ``tests/data/corpus-verdicts.tsv`` (issue 27 §4): the set reported equals the
set listed, and the errors judged false stay at or under one per 1,000 objects.

The file has the columns of ``../shared/tools/precision.py`` (repo, rule, file:line, verdict,
reason), so the same verdicts judge a run by hand. A new error (or one that moved) fails here
until it is judged; a listed error no longer reported fails too, and says whether it was true
(a true error lost) or false (a false one gone: delete its line).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from reviewbot.config import Config, find_config, load_config_file
from reviewbot.engine.run import analyze
from reviewbot.sources.tree import disk_tree

from .helpers import ROOT

CORPUS = ROOT.parent / "shared" / "corpus"
VERDICTS = ROOT / "tests" / "data" / "corpus-verdicts.tsv"


def _repos() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def _listed() -> dict[tuple[str, str, str], tuple[str, str]]:
    with VERDICTS.open(newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = {}
    for row in rows:
        key = (row["repo"], row["rule"], row["file:line"])
        assert key not in out, f"listed twice: {key}"
        assert row["verdict"] in ("TRUE", "FALSE"), row
        assert row["reason"].strip(), f"no reason: {key}"
        out[key] = (row["verdict"], row["reason"])
    return out


def _lint(repo: Path) -> tuple[set[tuple[str, str, str]], int]:
    """The errors of one repository linted as it is, and its object count."""
    found = find_config(repo, repo)
    config = load_config_file(found) if found else Config()
    result = analyze(disk_tree([repo], repo), config)
    errors = {(repo.name, f.rule, f"{f.file}:{f.line}")
              for f in result.findings if f.severity == "error"}
    return errors, len(result.model.objects)


_LINTED: dict[str, tuple[set[tuple[str, str, str]], int]] = {}


def _linted() -> tuple[set[tuple[str, str, str]], int]:
    """Every corpus error and the objects linted (each repository linted once per run)."""
    for repo in _repos():
        if repo.name not in _LINTED:
            _LINTED[repo.name] = _lint(repo)
    errors = {k for found, _ in _LINTED.values() for k in found}
    return errors, sum(count for _, count in _LINTED.values())


NO_CORPUS = "../shared/corpus (the real repositories) is not here"


@pytest.mark.skipif(not _repos(), reason=NO_CORPUS)
def test_the_corpus_errors_are_the_listed_ones() -> None:
    listed = _listed()
    reported, _ = _linted()
    unlisted = sorted(reported - set(listed))
    names = {r.name for r in _repos()}
    gone = sorted(k for k in listed if k not in reported and k[0] in names)
    assert unlisted == [], "errors without a verdict (judge them, list them):\n" + "\n".join(
        "\t".join(k) for k in unlisted)
    assert gone == [], "listed errors no longer reported:\n" + "\n".join(
        f"{listed[k][0]}{' (a true error lost)' if listed[k][0] == 'TRUE' else ''}\t"
        + "\t".join(k) for k in gone)


@pytest.mark.skipif(not _repos(), reason=NO_CORPUS)
def test_at_most_one_false_error_per_thousand_objects() -> None:
    listed = _listed()
    reported, objects = _linted()
    false = sorted(k for k in reported if listed.get(k, ("",))[0] == "FALSE")
    assert 1000 * len(false) / max(objects, 1) <= 1, (
        f"{len(false)} false errors in {objects} objects:\n"
        + "\n".join("\t".join(k) + "\t" + listed[k][1] for k in false))
