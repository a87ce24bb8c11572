"""Positions of a later document come from its own lines (linear in a bundle's size); they
must equal the positions composed from the whole stream, on every multi-document file here
and in the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewbot.load.loader import load
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
