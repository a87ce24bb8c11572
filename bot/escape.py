"""Text from the repository made safe for the medium it is written to: one function per
medium, used by every renderer.

Everything a repository holds is untrusted: file names, object and container names,
values, and the messages that quote them. Written raw, it could rewrite a terminal (ESC,
OSC, CR, bidi overrides), start a line that a CI runner executes as a workflow command
(``::error ...::``, ``::add-mask::``; GitHub's runner trims leading whitespace first, and
reads the legacy ``##[command]`` anywhere in a line), or, in a pull-request comment, mention
a team, load an image or open an HTML comment that hides every later finding.

- :func:`term`: a terminal or a CI log (the text report, ``--format github``'s messages, the
  semantic diff, netpol text, stderr, and every Markdown text, which is printed to logs too):
  control, zero-width and bidi characters shown as ``\\uXXXX``, bytes of a name that is no
  UTF-8 as ``\\ooo`` (as git shows them), never a leading ``:`` (after whitespace) and never
  ``##[``. Text that needs none of this is returned as it is.
- :func:`md_text`, :func:`md_code`, :func:`html_code`: Markdown (running text and table
  cells, code spans, text inside HTML): :func:`term` first, then the medium's own escaping,
  so no live HTML, link, ``@mention`` or ``<!--`` comes from the repository;
  :func:`md_prose`: running text whose image references are code spans (a fix's image
  reference copies as written).
"""

from __future__ import annotations

import json
import re
from json.encoder import encode_basestring as _encode_string
from typing import Any

# what is never written as it is: controls (C0, C1, DEL), format characters (zero-width,
# bidi overrides, the BOM, tag characters), line and paragraph separators, and lone
# surrogates (a file name's bytes that are no UTF-8, kept by surrogateescape)
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _char(char: str) -> str:
    # here: unicodedata is imported by a text with an unprintable character (a C extension's
    # loading: 0.2% of a one-file lint)
    import unicodedata

    if unicodedata.category(char) not in _HIDDEN:
        return char
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is no UTF-8: in octal, as git shows it
        return f"\\{code - 0xDC00:03o}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def term(text: object, *, tabs: bool = False) -> str:
    """``text`` for a terminal or a CI log: one line, nothing a terminal or a runner acts
    on. ``tabs``: keep tab characters (a source line quoted as it is, a patch's lines)."""
    text = str(text)
    if not text.isprintable():  # False for every control, format and separator character
        text = "".join(char if char.isprintable() or (tabs and char == "\t") else _char(char)
                       for char in text)
    if "##[" in text:  # the runner's legacy command syntax, read anywhere in a line
        text = text.replace("##[", "##\\u005b")
    stripped = text.lstrip()
    if stripped.startswith(":"):  # "::cmd::" at the start of a line is a workflow command
        at = len(text) - len(stripped)
        text = f"{text[:at]}\\u003a{text[at + 1:]}"
    return text


# ---------------------------------------------------------------- Markdown

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>])")
_MENTION = re.compile(r"(?<![\w.+/:-])@(?=\w)")  # a mention starts a word (not image@sha256)


def md_text(text: object) -> str:
    """Untrusted text in running Markdown (table cells included): shown literally, on one
    line (a line break is ``<br>``)."""
    parts = []
    for line in str(text).replace("\r\n", "\n").split("\n"):
        line = _html_escape(term(line), quote=False)
        line = _MD_SPECIAL.sub(r"\\\1", line)
        parts.append(_MENTION.sub("@\u200b", line))  # no @mention, no team ping
    return "<br>".join(parts)


def md_code(text: object, table: bool = True) -> str:
    """Untrusted text as a code span; in a table cell (the default) ``|`` is escaped."""
    body = term(text)
    if table:
        body = body.replace("|", "\\|")
    if not body.strip():
        return "*(empty)*"
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


_IMAGE = re.compile(r"[\w.-]+(?::\d+)?(?:/[\w.-]+)*(?::[\w.<>-]+)?(?:@sha256:[\w<>]+)?")
_EDGES = re.compile(r"^([(\[\"']*)(.*?)([.,;:)\]\"']*)$", re.S)


def _image_ref(word: str) -> bool:
    """An image reference (``reg/repo:tag@sha256:<digest>``): what a reader copies whole."""
    if not _IMAGE.fullmatch(word):
        return False
    return "@sha256:" in word or ("/" in word and ":" in word.rsplit("/", 1)[-1])


# a code span as a fix writes one (`kubectl delete --cascade=orphan`, `` ` ``): a run of
# backticks, text on one line, the same run (CommonMark's code span)
_SPAN = re.compile(r"(?<!`)(`+)(?!`)([^\n]+?)(?<!`)\1(?!`)")


def md_prose(text: object) -> str:
    """Untrusted running text, as :func:`md_text`, with each image reference in it and each
    code span it writes (a command a fix names) as a code span: copied as written (no
    zero-width space to break a mention, no backslash), and nothing in a code span is a
    link, a mention or HTML (new-user trial thirty-one: a fix's `kubectl delete
    --cascade=orphan` showed its backticks, escaped). A span holding ``|`` stays escaped
    text: in a table cell it would end the cell."""
    out, at = [], 0
    for span in _SPAN.finditer(str(text)):
        body = span.group(2)
        if "|" in body or not body.strip():
            continue
        out.append(_prose_words(str(text)[at:span.start()]))
        out.append(md_code(body[1:-1] if body.startswith(" ") and body.endswith(" ") and (
            body.strip()) else body, False))
        at = span.end()
    out.append(_prose_words(str(text)[at:]))
    return "".join(out)


def _prose_words(text: str) -> str:
    out = []
    for word in re.split(r"(\s+)", text):
        edges = _EDGES.match(word)
        if word.strip() and edges is not None and _image_ref(edges.group(2)):
            lead, core, tail = edges.groups()
            out.append(md_text(lead) + md_code(core, False) + md_text(tail))
        else:
            out.append(md_text(word))
    return "".join(out)


def html_code(text: object) -> str:
    """Untrusted text inside HTML (``<summary>``): entity-escaped, in ``<code>``."""
    return "<code>" + _html_escape(term(text), quote=True) + "</code>"


# ---------------------------------------------------------------- JSON


def json_text(value: object, indent: int | None = 2) -> str:
    """``value`` as JSON (UTF-8 kept) that a log shows safely: every control, format or
    separator character and ``##[`` written as a ``\\uXXXX`` escape. They occur only inside
    strings, where the escape reads back as the same text, so the data is unchanged."""
    text = json.dumps(value, ensure_ascii=False) if indent is None \
        else indented_json(value, indent)
    # json escapes every character below U+0020 in a string: in ASCII text only the
    # indentation's newlines and DEL can be unprintable (two scans at memchr speed instead of
    # a copy checked character by character: 1.5 ms of a 180 kB report)
    if (not text.isascii() or "\x7f" in text) and not text.replace("\n", "").isprintable():
        import unicodedata  # here: as in _char

        text = "".join(char if char == "\n" or char.isprintable() or
                       unicodedata.category(char) not in _HIDDEN else _json_escape(char)
                       for char in text)
    return text.replace("##[", "##\\u005b")


class _NotPlain(Exception):
    """A value :func:`indented_json` leaves to the json module."""


#: containers nested deeper than this are the json module's (its recursion limit, its errors)
_MOST_NESTED = 64
_INFINITY = float("inf")


def indented_json(value: object, indent: int) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``: the same text, written by one
    recursive pass into one list. The json module writes indented JSON with its Python
    encoder (its C encoder has no indentation in Python 3.11), a generator per container
    and a ``yield`` per piece: 19.3M instructions for the 154 kB report of
    hmcts-sds-flux-config, against 7.5M for its C encoder without indentation. Only dicts
    with ``str`` keys, lists, tuples, ``str``, ``int``, ``float``, ``bool`` and ``None`` (those
    exact types, as report data are), nested at most :data:`_MOST_NESTED` deep, are written
    here; any other value is the json module's whole, with its errors (a cycle, a type it
    cannot write) and its conversions (keys that are numbers, subclasses). Each piece is
    what the json module writes of it (``encode_basestring``, ``int.__repr__``,
    ``float.__repr__`` and its NaN and infinities); ``tests/test_outputs.py`` compares the
    two on reports and generated values."""
    if type(value) is dict or type(value) is list or type(value) is tuple:
        out: list[str] = []
        try:
            _container(value, out, "\n", " " * indent, 0)
        except _NotPlain:
            return json.dumps(value, indent=indent, ensure_ascii=False)
        return "".join(out)
    return json.dumps(value, indent=indent, ensure_ascii=False)


def _scalar(o: object) -> str | None:
    """What the json module writes of a scalar of the plain types; None for a container."""
    kind = type(o)
    if kind is str:
        return _encode_string(o)  # type: ignore[arg-type]
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if kind is int:
        return int.__repr__(o)
    if kind is float:
        if o != o:
            return "NaN"
        if o == _INFINITY:
            return "Infinity"
        if o == -_INFINITY:
            return "-Infinity"
        return float.__repr__(o)
    if kind is dict or kind is list or kind is tuple:
        return None
    raise _NotPlain


def _container(o: Any, out: list[str], newline: str, step: str, depth: int) -> None:
    """Append the text of the dict, list or tuple ``o`` at the indentation ``newline`` ends
    with, as the json module's ``_iterencode_dict`` and ``_iterencode_list`` write it."""
    if not o:
        out.append("{}" if type(o) is dict else "[]")
        return
    if depth >= _MOST_NESTED:
        raise _NotPlain
    inner = newline + step
    between = "," + inner
    if type(o) is dict:
        out.append("{" + inner)
        first = True
        for key, item in o.items():
            if type(key) is not str:
                raise _NotPlain
            if first:
                first = False
            else:
                out.append(between)
            out.append(_encode_string(key) + ": ")
            text = _scalar(item)
            if text is None:
                _container(item, out, inner, step, depth + 1)
            else:
                out.append(text)
        out.append(newline + "}")
        return
    out.append("[" + inner)
    first = True
    for item in o:
        if first:
            first = False
        else:
            out.append(between)
        text = _scalar(item)
        if text is None:
            _container(item, out, inner, step, depth + 1)
        else:
            out.append(text)
    out.append(newline + "]")


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes characters past the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _html_escape(text: str, quote: bool) -> str:
    """``html.escape``, imported when first used: only Markdown outputs write HTML (the
    module's entity table is 1 ms of every start)."""
    import html

    return html.escape(text, quote=quote)
