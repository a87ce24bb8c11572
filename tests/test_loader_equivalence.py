"""The loader reads libyaml's events through PyYAML's C wrapper; ruamel's C parser (the
parser before it, and its fallback) is the reference: on the corpus, the fixtures and
generated YAML, every file gives the same documents (values and types: YAML 1.1 booleans and
octals, merges, anchors re-defined, custom tags, ``=``), the same positions, the same
problems (duplicate keys, syntax errors, the depth and alias bounds) and the same skips.

One difference is allowed: ``pure``. The newer libyaml of PyYAML reads a ':' inside a flow
scalar (``{url: http://x:80}``) that the older one of ruamel refused, so such a file no
longer needs ruamel's pure parser; what it gives is the same (checked here too).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewbot.load import loader
from reviewbot.sources.tree import FileRecord

from .helpers import ROOT

CORPUS = ROOT.parent / "shared" / "corpus"
WRAPPER_WORKS = loader.LIBYAML  # PyYAML's events come in the shape the composer reads


def _canon(value: Any) -> Any:
    """A value with its types spelled out (True is not 1, 1.0 is not 1, nan equals nan)."""
    if isinstance(value, dict):
        return ("map", [(k, _canon(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_canon(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _seen(data: bytes, libyaml: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(loader, "LIBYAML", libyaml)
    out = loader.load(FileRecord("f.yaml", "blob", data))
    docs = [(d.index, d.line, _canon(d.value), out.positions(d.index),
             out.positions_in_stream(d.index)) for d in out.documents]
    return docs, out.problems, out.skipped, out.ignore_comments


def _same(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    assert WRAPPER_WORKS  # else the reference is all there is, and nothing is compared
    assert _seen(data, True, monkeypatch) == _seen(data, False, monkeypatch)


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml")
                  and p.is_file() and not p.is_symlink())


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus beside the clone")
def test_the_corpus_reads_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _files(CORPUS)
    assert len(files) > 1000
    for path in files:
        data = path.read_bytes()
        try:
            _same(data, monkeypatch)
        except AssertionError as exc:
            raise AssertionError(f"{path} reads differently") from exc


def test_the_fixtures_read_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    files = _files(ROOT / "tests" / "fixtures")
    assert files
    for path in files:
        try:
            _same(path.read_bytes(), monkeypatch)
        except AssertionError as exc:
            raise AssertionError(f"{path} reads differently") from exc


CASES = {
    "YAML 1.1 booleans and octals": "a: on\nb: yes\nc: N\nd: 0755\ne: 0o17\nf: 0x1F\ng: 1_000\n"
                                    "h: .inf\ni: ~\nj: 1e3\nk: 012_3\n",
    "= and other odd scalars": "a: =\nb: '='\nc: <<\nd: -\ne: ''\nf: !!str 12\ng: !!int '12'\n",
    "duplicate keys": "a: 1\nb: 2\na: 3\n",
    "a duplicate in a nested mapping": "a:\n  b: 1\n  c: {d: 1, d: 2}\n",
    "anchors re-defined": "a: &x 1\nb: *x\nc: &x 2\nd: *x\n",
    "merge keys": "base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3\nn: {<<: [*b, {c: 4}]}\n",
    "a merge then a duplicate": "b: &b {a: 1}\nm:\n  <<: *b\n  a: 2\n  a: 3\n",
    "custom tags": "a: !env_var HOME\nb: !!binary aGk=\nc: !Ref x\nd: !!value =\n",
    "an undefined alias": "a: *nope\n",
    "a syntax error after a good document": "a: 1\n---\nb: [1,\n",
    "a tab in indentation": "a:\n\tb: 1\n",
    "a flow colon": "url: {a: http://x:80}\nb: [c:d]\n",
    "an unknown directive": "%FOO bar\n---\na: 1\n",
    "complex keys": "? [a, b]\n: 1\n",
    "nesting too deep": "a: " + "[" * 120 + "]" * 120 + "\n",
    "an alias bomb": "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
        for p, c in zip("abcdef", "bcdefg", strict=True)),
    "surrogates": 'a: "\\ud83d\\ude80"\nb: "\\uD800"\n',
    "suppression comments": "a: 1  # reviewbot: ignore[x] why\nb: '# reviewbot: ignore[y]'\n"
                            "c: |\n  # reviewbot: ignore[z]\n",
    "a helm template": "{{ if .Values.x }}\na: {{ .Values.y }}\n{{ end }}\n",
    "CRLF and other breaks": "a: 1\r\nb:\r\n  - 2\r\n---\r\nc: 3\u2028d\n",
    "an empty stream": "",
    "empty documents": "---\n---\n...\n---\na: 1\n",
    "control characters": "a: b\x07c\n",
    "a BOM": "\ufeffa: 1\n",
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_cases_read_the_same(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(text.encode(), monkeypatch)


def test_a_flow_colon_no_longer_needs_the_pure_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"url: {a: http://x:80}\n"
    monkeypatch.setattr(loader, "LIBYAML", True)
    assert loader.load(FileRecord("f.yaml", "blob", data)).pure is False
    monkeypatch.setattr(loader, "LIBYAML", False)
    assert loader.load(FileRecord("f.yaml", "blob", data)).pure is True


# generated YAML: lines of keys, list items, flow collections, anchors, aliases, tags and odd
# scalars at random indents, valid or not, so both the documents and the errors are compared
_SCALARS = st.sampled_from([
    "1", "on", "off", "yes", "No", "y", "0755", "0x1F", "1_000", "1.5", ".inf", "-.INF",
    ".nan", "~", "null", "=", "<<", "-", "'q'", '"d\\u00e9"', "!!str 12", "!!int '7'",
    "!custom v", "a b", "http://x:80", "", "&a 1", "&b x", "*a", "*b", "|", ">-", "[1, on]",
    "{k: v, k: w}", "[a: b]", "{<<: *a}", "#c", "'unclosed", "[", "}", "\t1", "é", "\x85",
])
_KEYS = st.sampled_from(["a", "b", "on", "1", "<<", "'q'", "? x", "a b", "&k k", "*a", "-", ""])
_LINE = st.tuples(st.integers(0, 6), st.sampled_from(["key", "item", "doc", "scalar"]),
                  _KEYS, _SCALARS)


def _text(lines: list[tuple[int, str, str, str]]) -> str:
    out = []
    for indent, kind, key, scalar in lines:
        pad = " " * indent
        if kind == "key":
            out.append(f"{pad}{key}: {scalar}".rstrip())
        elif kind == "item":
            out.append(f"{pad}- {scalar}".rstrip())
        elif kind == "doc":
            out.append("---")
        else:
            out.append(f"{pad}{scalar}")
    return "\n".join(out) + "\n"


@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_yaml_reads_the_same(lines: list[tuple[int, str, str, str]]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _same(_text(lines).encode(), monkeypatch)


# ---------------------------------------------------------------- positions, located

def _paths(positions: dict[Any, Any]) -> list[tuple[Any, ...]]:
    """Every path positions were recorded for, and paths below, beside and past them."""
    out = []
    for path in positions:
        if path and path[0] == loader._KEY:
            continue
        out += [path, (*path, "absent"), (*path, 0, "deeper")]
        if path:
            out.append((*path[:-1], "sibling"))
    return out


def _locates_the_same(data: bytes) -> None:
    """Each path looked up alone (``LoadedFile.locate``), and all of a document's paths
    looked up at once (``Document.locate_all``: one walk), give what the whole document's
    positions give, for position and key_position."""
    composed = loader.load(FileRecord("f.yaml", "blob", data))
    located = loader.load(FileRecord("f.yaml", "blob", data))
    batched = loader.load(FileRecord("f.yaml", "blob", data))
    for doc, again, batch in zip(composed.documents, located.documents, batched.documents,
                                 strict=True):
        paths = _paths(composed.positions(doc.index))
        for path in paths:
            again._positions = None  # one walk per path: the fallback to all is not taken
            located._located = None
            assert again.position(path) == doc.position(path), path
            assert again.key_position(path) == doc.key_position(path), path
        batch.locate_all(paths)
        batched._position_cache = None  # every answer is the one walk's
        for path in paths:
            assert batch.position(path) == doc.position(path), path
            assert batch.key_position(path) == doc.key_position(path), path
        assert batched._position_cache is None or batch._positions is not None


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus beside the clone")
def test_the_corpus_locates_the_same() -> None:
    # every tenth file: each path is a walk of its own (the whole corpus takes minutes)
    for path in _files(CORPUS)[::10]:
        try:
            _locates_the_same(path.read_bytes())
        except AssertionError as exc:
            raise AssertionError(f"{path} locates differently") from exc


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_cases_locate_the_same(text: str) -> None:
    _locates_the_same(text.encode())


@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_yaml_locates_the_same(lines: list[tuple[int, str, str, str]]) -> None:
    _locates_the_same(_text(lines).encode())


# Off-path block mappings cut out of the text (``loader._Cutter``): with every mapping of a
# line or more cut, each path still locates where the whole composition puts it, on shapes
# where a naive cut at the first line indented no deeper than the key would be wrong.
CUT_CASES = {
    "a quoted scalar running across a shallow line": (
        "spec:\n  schema:\n    d: 'it\n  served: fake\n    '\n    e: 1\n  served: true\n"),
    "a double-quoted one": (
        'spec:\n  schema:\n    d: "x\n  served: fake\n    y"\n  served: true\n'),
    "a flow collection across a shallow line": (
        "spec:\n  schema:\n    d: [a,\n  b]\n    e: {f: 1,\n g: 2}\n  served: true\n"),
    "an anchor in the cut, an alias after": (
        "spec:\n  schema:\n    d: &x v\n    e: 1\n  served: *x\n  *x : k\n"),
    "comments at the margin inside": (
        "spec:\n  schema:\n    d: 1\n# a comment\n    e: 2\n  # another\n  served: true\n"),
    "sequences of mappings": (
        "spec:\n  versions:\n  - name: a\n    schema:\n      x: 1\n      y: [1]\n"
        "    served: true\n  - schema:\n      z: 2\n    served: false\n"),
    "block scalars": (
        "spec:\n  schema:\n    d: |\n      \"quoted\n      [open\n    e: 2\n  served: 1\n"),
    "a tag and an anchor on the mapping": (
        "spec:\n  a: !!map\n    x: 1\n  b: &m\n    y: 2\n  c: *m\n  served: 1\n"),
    "a document after": "a:\n  b:\n    c: 1\n  d: 2\n---\na:\n  b:\n    c: 3\n  d: 4\n",
    "a document marker inside a quoted scalar": 'a:\n  b:\n    c: "x\n---\n  y"\n  d: 2\n',
}


@pytest.mark.parametrize("text", [*CASES.values(), *CUT_CASES.values()],
                         ids=[*CASES.keys(), *CUT_CASES.keys()])
def test_cases_locate_the_same_when_cut(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "CUT_LINES", 1)
    _locates_the_same(text.encode())


def test_a_long_mapping_off_the_path_is_cut_out() -> None:
    """The walk to a path past a long schema starts again without it, its lines left empty
    (so every later line stays where it was); the cut is refused where a flow collection runs
    across the line that would end it."""
    schema = "".join(f"      p{i}:\n        type: string\n        enum: [a, 'b']\n"
                     f"        description: the pod's [{i}] {{x}}\n" for i in range(50))
    text = f"spec:\n  names: {{kind: X}}\n  schema:\n    properties:\n{schema}  served: true\n"
    lines = text.count("\n")

    def cut(text: str, check: int) -> str | None:
        try:
            loader._compose_stream(text, True, False, [], 0, [("spec", "served")], check)
        except loader._Cut as done:
            return done.text
        return None

    for check in (loader._CHECKED, loader._TRUSTED):
        assert cut(text, check) == "spec:\n  names: {kind: X}\n  schema:\n" + "\n" * (
            lines - 4) + "  served: true\n"
    straddled = text.replace("      p7:\n        type: string\n",
                             "      p7: {a: 1,\n  served: fake,\n   b: 2}\n      q7:\n")
    assert cut(straddled, loader._CHECKED) is None
    for shape, where in ((text, lines), (straddled, lines + 2)):
        located = loader.load(FileRecord("f.yaml", "blob", shape.encode()))
        assert located.documents[0].spans is (shape is straddled)
        assert located.documents[0].position(("spec", "served")) == (where, 11)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus beside the clone")
def test_the_corpus_locates_the_same_when_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loader, "CUT_LINES", 1)
    for path in _files(CORPUS)[5::40]:
        try:
            _locates_the_same(path.read_bytes())
        except AssertionError as exc:
            raise AssertionError(f"{path} locates differently when cut") from exc


@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_yaml_locates_the_same_when_cut(lines: list[tuple[int, str, str, str]]) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(loader, "CUT_LINES", 1)
        _locates_the_same(_text(lines).encode())


def test_ruamel_is_imported_only_when_a_file_needs_it() -> None:
    """Start-up: valid YAML (and suppression comments) is read without importing ruamel.yaml;
    a file libyaml refuses brings it in for the fallback (its own process: imports stay)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from reviewbot.load.loader import load\n"
        "from reviewbot.sources.tree import FileRecord\n"
        "load(FileRecord('a.yaml', 'b', b'a: 1  # reviewbot: ignore[x] y\\nb: [c, d]\\n'))\n"
        "print('ruamel.yaml' in sys.modules)\n"
        "load(FileRecord('b.yaml', 'b', b'a: [b\\n'))\n"
        "print('ruamel.yaml' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]


def test_the_printable_class_seeded_for_yaml_reader_is_the_same_set() -> None:
    """Start-up: yaml.reader's NON_PRINTABLE (compiled when PyYAML is imported) is taken from
    re's cache, where the loader put the same class written as its complement: both match
    exactly the same code points, all 1,114,112 of them, and the seed is what yaml.reader
    holds after the loader imported PyYAML (its own process: imports stay)."""
    import re
    import subprocess
    import sys

    everything = "".join(map(chr, range(0x110000)))
    # re.UNICODE, the default for a str pattern, makes another cache key: compiled afresh
    original = re.compile(loader.NON_PRINTABLE, re.UNICODE)
    seeded = re.compile(loader.NON_PRINTABLE_COMPLEMENT)
    assert original.pattern == loader.NON_PRINTABLE
    found = [m.start() for m in original.finditer(everything)]
    assert found == [m.start() for m in seeded.finditer(everything)]
    assert len(found) == 0x110000 - (3 + 95 + 1 + (0xD7FF - 0xA0 + 1) + (0xFFFD - 0xE000 + 1)
                                     + (0x10FFFF - 0x10000 + 1))
    code = ("import reviewbot.load.loader as l, yaml.reader as r\n"
            "print(r.Reader.NON_PRINTABLE.pattern == l.NON_PRINTABLE_COMPLEMENT)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True"]


@pytest.mark.parametrize(("text", "spans"), [
    ("a: 'x'\nb: \"y\"\nc: [1, 2]\nd: {e: f}\ng: |\n  h\n  i\nj: k\n  l\n", False),
    ("a: 'x\n  y'\n", True),
    ('a:\n  b: "x\n\n  y"\n', True),
    ("a: [1,\n  2]\n", True),
    ("a: {b: [1,\n 2], c: 3}\n", True),
    ("? 'long\n  key'\n: 1\n", True),
])
def test_the_composer_tells_what_spans_lines(text: str, spans: bool) -> None:
    """A quoted scalar or a flow collection over several lines is what keeps the locator's
    cuts checked (block and plain scalars cannot run across a line no deeper than their key)."""
    loaded = loader.load(FileRecord("f.yaml", "blob", text.encode()))
    assert [d.spans for d in loaded.documents] == [spans]


# ---------------------------------------------------------------- merges in the fast pass


def _composed(text: str, marks: bool) -> Any:
    """The documents of ``text`` composed without positions (the fast pass: "recheck" when it
    stops) or with them (the strict pass, which names duplicate keys)."""
    out: list[Any] = []
    try:
        loader._compose_stream(text, marks, False, out)
    except loader._Recheck:
        return "recheck"
    except loader.ProblemError as exc:
        return ("problem", exc.message, exc.line, exc.column)
    return [(_canon(value), line, spans, apart) for value, line, _, spans, apart, _ in out]


def _reads_as_the_strict_pass(text: str) -> None:
    fast, strict = _composed(text, False), _composed(text, True)
    if fast == "recheck":  # only for a key written twice, which the strict pass names
        assert strict[0] == "problem" and "duplicate mapping key" in strict[1], text
    else:
        assert fast == strict, text


MERGES = [
    "b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 3\n",
    "b: &b {x: 1, y: 2}\nm:\n  x: 3\n  <<: *b\n",
    "b: &b {x: 1, y: 2}\nm:\n  x: 3\n  <<: *b\n  x: 4\n",
    "b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  x: 3\n  x: 4\n",
    "b: &b {x: 1, y: 2}\nm:\n  <<: *b\n  z: 3\n  z: 4\n",
    "b: &b {x: 1}\nc: &c {y: 2}\nm:\n  <<: *b\n  <<: *c\n",
    "b: &b {x: 1}\nc: &c {x: 2, y: 2}\nm:\n  <<: [*b, *c]\n  y: 3\n  x: 4\n",
    "b: &b {x: 1}\nm:\n  <<: *b\n  n:\n    <<: *b\n    x: 2\n  x: 3\n  n: 4\n",
    "b: &b {x: 1}\nm:\n  <<: *b\n  n: {x: 5, x: 6}\n",
    "b: &b {x: 1}\nm:\n  n: {<<: *b, x: 2}\n  n2: {x: 2, <<: *b}\n  x: 1\n  x: 2\n",
    "k: &k x\nb: &b {x: 1}\nm:\n  <<: *b\n  *k : 2\n",
    "k: &k x\nb: &b {x: 1}\nm:\n  <<: *b\n  *k : 2\n  x: 3\n",
    "k: &k <<\nb: &b {x: 1}\nm:\n  <<: *b\n  *k : *b\n",
    "b: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n---\nm: {x: 1, x: 2}\n",
    "b: &b [1]\nm:\n  <<: *b\n",
]


@pytest.mark.parametrize("text", MERGES)
def test_merges_read_as_the_strict_pass_reads_them(text: str) -> None:
    _reads_as_the_strict_pass(text)


_KEYS = st.sampled_from(["x", "y", "z", "<<", "<<*"])


@given(st.lists(_KEYS, max_size=8), st.lists(st.sampled_from("xyz"), max_size=3),
       st.lists(st.sampled_from("xyz"), max_size=3), st.booleans())
def test_generated_merges_read_as_the_strict_pass_reads_them(
        keys: list[str], first: list[str], second: list[str], nested: bool) -> None:
    lines = ["b: &b {" + ", ".join(f"{k}: b{i}" for i, k in enumerate(first)) + "}",
             "c: &c {" + ", ".join(f"{k}: c{i}" for i, k in enumerate(second)) + "}",
             "m:"]
    indent = "  "
    if nested:
        lines.append("  n:")
        indent = "    "
    for i, key in enumerate(keys):
        if key == "<<":
            lines.append(f"{indent}<<: {'*b' if i % 2 else '[*c, *b]'}")
        elif key == "<<*":
            lines.append(f"{indent}<<: *c")
        else:
            lines.append(f"{indent}{key}: v{i}")
    _reads_as_the_strict_pass("\n".join(lines) + "\n")


def test_a_parse_leaves_the_c_wrappers_with_their_own_event_classes() -> None:
    """The fast event classes stand in PyYAML's (and ruamel's) C wrapper only while a parse
    reads: after one, every name holds its stock class again, and PyYAML's own C loader
    reads as it does without us."""
    import ruamel.yaml.events
    import yaml
    import yaml._yaml

    loader.load(FileRecord("a.yaml", "b", b"a: [1, 2]\nb: &x {c: *x}\n"))
    loader.load(FileRecord("b.yaml", "b", b"a: [b\n"))  # refused: ruamel's parsers read it
    ruamel_c = loader._ruamel().module
    for name, fast in loader._LIB_FAST:
        assert getattr(yaml._yaml, name) is getattr(yaml.events, name) is not fast
        assert getattr(ruamel_c, name) is getattr(ruamel.yaml.events, name) is not fast
    assert yaml.load("a: [1, 2]\n", Loader=yaml.CSafeLoader) == {"a": [1, 2]}


# A document's own text (its lines to the next document's; the first's from the start) holds
# all of it: read alone, it gives the document; ``documents_holding`` names the documents
# whose own text holds a needle (what postBuild substitution asks: may it spell ``${``)
def _own_texts_hold_their_documents(data: bytes) -> None:
    lf = loader.load(FileRecord("f.yaml", "blob", data))
    if "\r" in lf.text or "\x85" in lf.text or "\u2028" in lf.text or "\u2029" in lf.text:
        return  # (other line breaks: every document holding it is named, tested below)
    lines = lf.text.split("\n")
    starts = [d.line for d in lf.documents]
    for n, doc in enumerate(lf.documents):
        begin = starts[n] - 1 if n else 0
        end = starts[n + 1] - 1 if n + 1 < len(starts) else len(lines)
        own = "\n".join(lines[begin:end])
        if len(lf.documents) > 1:
            alone = loader.load(FileRecord("f.yaml", "blob", own.encode()))
            assert alone.documents and _canon(alone.documents[0].value) == _canon(doc.value)
        for needle in ("${", ": ", "- ", "a", "\\", "#"):
            assert (doc.index in lf.documents_holding(needle)) == (needle in own), needle


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus beside the clone")
def test_the_corpus_s_documents_are_their_own_texts() -> None:
    for path in _files(CORPUS)[::5]:
        try:
            _own_texts_hold_their_documents(path.read_bytes())
        except AssertionError as exc:
            raise AssertionError(f"{path}: a document is not its own text") from exc


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_cases_documents_are_their_own_texts(text: str) -> None:
    _own_texts_hold_their_documents(text.encode())


@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_documents_are_their_own_texts(lines: list[tuple[int, str, str, str]]) -> None:
    _own_texts_hold_their_documents(_text(lines).encode())


def test_with_other_line_breaks_every_document_holding_a_needle_is_named() -> None:
    lf = loader.load(FileRecord("f.yaml", "blob", b"a: 1\r\n---\r\nb: ${X}\r\n"))
    assert lf.documents_holding("${") == {0, 1}
    assert lf.documents_holding("nowhere") == set()


# ---------------------------------------------------------------- the fast composer

def _each_document(text: str, fast: bool) -> list[Any]:
    """Every document of ``text`` (libyaml's events) composed without positions by
    ``_compose_fast`` or by the plain ``_compose_document``, then what stopped it."""
    out: list[Any] = []
    get, close = loader._open_events(text, "libyaml")
    try:
        while True:
            event = get()
            if type(event) is loader._DocStart:
                line = event.args[0].line + 1
                value, first, positions, spans, apart, folded = (
                    loader._compose_fast(get, line) if fast
                    else loader._compose_document(get, line, False, loader.resolve_plain))
                out.append((_canon(value), first, positions, spans, apart, folded))
            elif type(event) is loader._StreamEnd:
                break
    except Exception as exc:  # a parser error, a problem, the strict pass's signal
        out.append((type(exc).__name__, getattr(exc, "message", None),
                    getattr(exc, "line", None), getattr(exc, "column", None)))
    finally:
        close()
    return out


def _composes_as_the_plain_loop(text: str) -> None:
    assert _each_document(text, True) == _each_document(text, False), text


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no corpus beside the clone")
def test_the_corpus_composes_as_the_plain_loop() -> None:
    files = _files(CORPUS)
    assert len(files) > 1000
    for path in files:
        _composes_as_the_plain_loop(loader.decode_text(path.read_bytes()))


@pytest.mark.parametrize("text", [*CASES.values(), *MERGES])
def test_cases_compose_as_the_plain_loop(text: str) -> None:
    _composes_as_the_plain_loop(text)


@given(st.lists(_LINE, min_size=1, max_size=14))
def test_generated_yaml_composes_as_the_plain_loop(lines: list[tuple[int, str, str, str]]) -> None:
    _composes_as_the_plain_loop(_text(lines))


@given(st.lists(_KEYS, max_size=8), st.lists(st.sampled_from("xyz"), max_size=3),
       st.booleans())
def test_generated_merges_compose_as_the_plain_loop(
        keys: list[str], first: list[str], nested: bool) -> None:
    lines = ["b: &b {" + ", ".join(f"{k}: b{i}" for i, k in enumerate(first)) + "}",
             "c: &c [*b, {z: 1}]", "m:"]
    indent = "    " if nested else "  "
    if nested:
        lines.append("  n:")
    for i, key in enumerate(keys):
        lines.append(f"{indent}{key}: {'*b' if i % 3 == 0 else '*c' if i % 3 == 1 else i}")
    _composes_as_the_plain_loop("\n".join(lines) + "\n")


@given(st.integers(1, 99), st.integers(0, 99), st.booleans())
def test_nesting_through_aliases_composes_as_the_plain_loop(
        deep: int, at: int, mapping: bool) -> None:
    """The depth bound through aliases (each anchored collection's levels) at its edge."""
    inner = "{k: " * deep + "v" + "}" * deep if mapping else "[" * deep + "]" * deep
    text = (f"a: &a {inner}\nb: &b [*a, {{c: *a}}]\n"
            f"c: {'[' * at}*b{']' * at}\nd: {'[' * at}{{<<: *a}}{']' * at}\n")
    _composes_as_the_plain_loop(text)


def test_plain_scalars_read_once_are_read_as_resolve_plain_reads_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``PLAIN_READ`` keeps is what reading the text again gives, also past its bound."""
    texts = ["1", "08", "0o17", "on", "true", "~", "null", ".nan", "1e3", "2024-01-01", "tcp",
             "yes", "-", "+1", "0x1F", "1_000", ".inf", "nginx", "O"]
    monkeypatch.setattr(loader, "PLAIN_READ", {})
    monkeypatch.setattr(loader, "PLAIN_READ_MOST", 5)
    doc = "".join(f"k{i}: {t}\n" for i, t in enumerate(texts * 2))
    _composes_as_the_plain_loop(doc)
    assert len(loader.PLAIN_READ) == 5
    for text, (value, apart) in loader.PLAIN_READ.items():
        assert _canon(value) == _canon(loader.resolve_plain(text))
        assert apart == loader._read_plain(text)[1]


def test_a_batch_of_parses_reads_as_each_alone_and_leaves_the_stock_classes() -> None:
    """``parse_files`` holds the fast event classes for the whole batch
    (``loader.fast_events``): each file reads as ``load`` alone reads it, the wrapper has its
    own classes again after the batch, however it ends, and PyYAML's own loader works."""
    import yaml
    import yaml._yaml

    from reviewbot.engine.parse import parse_files

    texts = [b"a: [1, 2]\nb: &x {c: *x}\n", b"a: [b\n", b"k: on\n---\nj: 0755\nl: <<\n",
             b"m: {a: 1, a: 2}\n", b"{{ .x }}\n"]
    records = [FileRecord(f"{i}.yaml", "blob", data) for i, data in enumerate(texts)]

    def seen(lf: loader.LoadedFile) -> Any:
        return ([(d.index, d.line, _canon(d.value), d.kyaml_apart) for d in lf.documents],
                lf.problems, lf.skipped, lf.pure)

    assert [seen(lf) for lf in parse_files(records)] == [seen(loader.load(r)) for r in records]

    def stock() -> bool:
        return all(getattr(yaml._yaml, name) is getattr(yaml.events, name)
                   for name, _ in loader._LIB_FAST)

    assert stock() and loader._HOLDING == 0
    with pytest.raises(RuntimeError), loader.fast_events(), loader.fast_events():  # nested
        assert not stock()
        raise RuntimeError
    assert stock() and loader._HOLDING == 0
    assert yaml.load("a: [1, 2]\n", Loader=yaml.CSafeLoader) == {"a": [1, 2]}


def test_files_of_the_same_bytes_are_parsed_once_and_share_no_value(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``parse_files`` parses a manifest vendored into many folders once and copies it for
    the others (``loader.load_alike``): each reads as ``load`` alone reads it (documents,
    problems, skips, ignore comments), under its own path, and no value of one file is an
    object of another's, as when each was parsed; the same bytes in a ``templates/`` folder
    are parsed apart (a template there is skipped)."""
    from reviewbot.engine import parse

    texts = [b"a: &x [1, {b: on}]\nc: *x\n---\nd: 0755\n", b"m: {a: 1, a: 2}\n", b"a: [b\n",
             b"k: v  # reviewbot: ignore[schema]\n", b"x: {{ .y }}\n", b"x: '{{ .y }}'\n"]
    records = [FileRecord(f"{folder}/{i}.yaml", f"blob{i}", data)
               for folder in ("one", "two", "chart/templates") for i, data in enumerate(texts)]
    parsed: list[str] = []

    def counted(record: FileRecord, limit: int = loader.MAX_FILE_BYTES) -> loader.LoadedFile:
        parsed.append(record.path)
        return loader.load(record, limit)

    monkeypatch.setattr(parse, "load", counted)

    def seen(lf: loader.LoadedFile) -> Any:
        return (lf.path, [(d.index, d.line, _canon(d.value), d.spans, d.kyaml_apart, d.refused)
                          for d in lf.documents],
                lf.problems, lf.skipped, lf.pure, lf.ignore_comments, lf.data)

    def ids(value: Any) -> set[int]:
        inner = value.values() if isinstance(value, dict) else value if isinstance(
            value, list) else ()
        return {id(value)}.union(*(ids(v) for v in inner)) if inner else set()

    files = parse.parse_files(records)
    assert [seen(lf) for lf in files] == [seen(loader.load(r)) for r in records]
    assert sorted(parsed) == sorted(r.path for r in records if not r.path.startswith("two/"))
    assert files[6].documents[0].value["c"] is files[6].documents[0].value["a"]  # the alias
    owned = [set().union(*(ids(d.value) for d in lf.documents)) for lf in files]
    assert all(not owned[i] & owned[j] for i in range(len(files)) for j in range(i))
