"""Positions of a later document come from its own lines (linear in a bundle's size); they
must equal the positions composed from the whole stream, on every multi-document file here
and in the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.load.loader import LINE_CHUNK, LoadedFile, held, load
from reviewbot.sources.tree import FileRecord

from .helpers import ROOT

CORPUS = ROOT.parent / "shared" / "corpus"


def _files() -> list[Path]:
    roots = [ROOT / "tests" / "fixtures", ROOT / "examples"]
    if CORPUS.is_dir():
        roots.append(CORPUS)
    return sorted(p for r in roots for p in r.rglob("*") if p.suffix in (".yaml", ".yml")
                  and p.is_file() and not p.is_symlink())


BUNDLE = "".join(
    f"---\n# object {i}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"
    f"data:\n  k: &a |\n    line one\n    line two\n  v: *a\n" for i in range(60))


def _multi() -> list[tuple[str, bytes]]:
    out = [("bundle.yaml", BUNDLE.encode()), ("crlf.yaml", BUNDLE.replace("\n", "\r\n").encode())]
    for path in _files():
        data = path.read_bytes()
        if data.count(b"\n---") >= 1:
            out.append((path.as_posix(), data))
    return out


@pytest.mark.parametrize("name,data", _multi(), ids=lambda v: v if isinstance(v, str) else "")
def test_document_positions_equal_the_whole_streams(name: str, data: bytes) -> None:
    loaded = load(FileRecord(name, "", data))
    for doc in loaded.documents:
        assert loaded.positions(doc.index) == loaded.positions_in_stream(doc.index), doc.index


def test_the_bundle_has_its_documents() -> None:
    loaded = load(FileRecord("bundle.yaml", "", BUNDLE.encode()))
    assert len(loaded.documents) == 60
    assert loaded.documents[59].position(("metadata", "name")) == (59 * 11 + 6, 9)


def _line_starts(text: str) -> list[int]:
    """The reference: where each line starts, a newline found at a time."""
    starts = [0]
    at = text.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    return starts


@given(st.lists(st.sampled_from(["\n", "a", "é: b", "x" * (LINE_CHUNK - 1), "y" * LINE_CHUNK,
                                 "z" * (LINE_CHUNK + 1), "\n" * 3]), max_size=30).map("".join))
@settings(max_examples=300, deadline=None)
def test_a_line_starts_where_the_newline_before_it_ends(text: str) -> None:
    loaded = LoadedFile("x.yaml", "", text.encode(), _text=text)
    counts = loaded._layout()[0]
    assert counts is not None
    starts = _line_starts(text)
    for line in range(1, len(starts) + 3):
        assert loaded._line_start(counts, line) == (
            starts[line - 1] if line - 1 < len(starts) else len(text)), line


def test_a_missing_field_is_located_by_the_part_of_its_path_the_document_holds() -> None:
    """A finding about a field the document lacks points at its nearest written parent; the
    walk looks for that parent only (``held``), and finds what the whole document's
    positions give (tests/test_loader_equivalence.py compares every path of the corpus)."""
    text = ("base: &b {x: 1}\nspec:\n  <<: *b\n  ports: [80, 443]\n  template:\n"
            "    labels: {a: b}\n  alias: *b\n")
    doc = load(FileRecord("f.yaml", "blob", text.encode())).documents[0]
    assert held(doc.value, ("spec", "strategy", "type")) == ("spec",)
    assert held(doc.value, ("spec", "x")) == ("spec", "x")  # merged: in the value only
    assert held(doc.value, ("spec", "ports", 2)) == ("spec", "ports")
    assert held(doc.value, ("spec", "ports", 1, "a")) == ("spec", "ports", 1)
    assert held(doc.value, ("spec", "ports", -1)) == ("spec", "ports")
    assert held(doc.value, ("spec", "alias", "x")) == ("spec", "alias", "x")
    assert held(doc.value, ("spec", "<<")) == ("spec",)
    whole = load(FileRecord("f.yaml", "blob", text.encode())).documents[0]
    whole._positions = whole.file.positions(0)
    for path in (("spec", "strategy", "type"), ("spec", "x"), ("spec", "ports", 2),
                 ("spec", "alias", "x"), ("spec", "template", "labels", "c")):
        assert doc.position(path) == whole.position(path), path
        assert doc.key_position(path) == whole.key_position(path), path
    assert doc.position(("spec", "strategy", "type")) == (2, 1)
