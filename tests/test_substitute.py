"""Flux's postBuild substitution walks every built body (bot/model/substitute.py). The walk
copies a container only from its first changed item on; the reference here is the plain
definition (substitute every value and key, keep the container when nothing changed). On
generated bodies both give the same value, the same types, the same unseen variables, and
the same object wherever nothing changed."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewbot.load.loader import load
from reviewbot.model.substitute import (
    Substitutions,
    Values,
    _expanded,
    expand,
    post_build_values,
    substitute,
    variable_documents,
)
from reviewbot.sources.tree import FileRecord


def _reference(value: Any, values: Values, missing: set[str]) -> Any:
    if isinstance(value, str):
        if "${" not in value:
            return value
        out, whole = expand(value, values.known, bool(values.unknown), missing, set())
        if whole:
            if re.fullmatch(r"[-+]?[0-9]+", out):
                return int(out)
            if out in ("true", "false"):
                return out == "true"
            # a default written quoted: its quotes are YAML's once Flux substitutes the text
            # kustomize wrote plain (unless go-yaml quotes that text itself)
            if len(out) > 1 and out[0] == out[-1] and out[0] in "\"'" and out[0] not in (
                    out[1:-1]) and "\\" not in out and not re.search(r": | #|:$", value):
                return out[1:-1]
        return out
    if isinstance(value, dict):
        walked = {k: _reference(v, values, missing) for k, v in value.items()}
        keyed = {(_text(k, values, missing) if isinstance(k, str) and "${" in k else k): v
                 for k, v in walked.items()}
        if len(keyed) == len(value) and all(k in value and value[k] is v
                                            for k, v in keyed.items()):
            return value
        return keyed
    if isinstance(value, list):
        items = [_reference(v, values, missing) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _text(text: str, values: Values, missing: set[str]) -> str:
    return expand(text, values.known, bool(values.unknown), missing, set())[0]


def _canon(value: Any) -> Any:
    if isinstance(value, dict):
        return ("map", [(_canon(k), _canon(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_canon(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _containers(value: Any) -> list[Any]:
    """Every dict and list in ``value``, itself included."""
    if isinstance(value, dict):
        return [value, *(c for v in value.values() for c in _containers(v))]
    if isinstance(value, list):
        return [value, *(c for v in value for c in _containers(v))]
    return []


def _kept(result: Any, body: Any) -> list[int]:
    """The containers of ``body`` that ``result`` holds as they are (the same objects)."""
    mine = {id(c) for c in _containers(body)}
    return sorted(id(c) for c in _containers(result) if id(c) in mine)


_FRAGMENTS = ["${A}", "${B}", "${UNSET}", "${N}", "${A:=d}", "${UNSET:-dflt}", "${EMPTY:=e}",
              "$${A}", "$", "{", "x", "-", " ", "${", "}", "${UNSET:-${A}}", "${EMPTY:-"]
_TEXTS = st.lists(st.sampled_from(_FRAGMENTS), max_size=4).map("".join)


class _Text(str):
    """A text of another type than ``str`` (the walk tells the loader's types apart by
    their exact type first)."""


class _Map(dict[Any, Any]):
    """A mapping of another type than ``dict``."""


_SCALARS = st.one_of(_TEXTS, st.integers(-3, 3), st.booleans(), st.none(), st.floats(),
                     _TEXTS.map(_Text))
_BODIES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(_TEXTS, st.integers(-1, 1), _TEXTS.map(_Text)), inner,
                        max_size=4),
        st.dictionaries(_TEXTS, inner, max_size=3).map(_Map)),
    max_leaves=30)
_VALUES = st.builds(
    Values,
    st.dictionaries(st.sampled_from(["A", "B", "N", "EMPTY"]),
                    st.sampled_from(["1", "true", "", "b", "${A}", "-7"]), max_size=4),
    st.sampled_from([(), ("ConfigMap flux-system/settings (not in the repository)",)]))


@settings(max_examples=400, deadline=None)
@given(_BODIES, _VALUES)
def test_the_walk_substitutes_as_the_plain_definition_does(body: Any, values: Values) -> None:
    missing: set[str] = set()
    ref = _reference(body, values, missing)
    out, unseen = substitute(body, values)
    assert _canon(out) == _canon(ref)
    assert unseen == tuple(sorted(missing))
    assert _kept(out, body) == _kept(ref, body)


def test_a_body_without_variables_is_given_back_as_it_is() -> None:
    body = {"kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "$x {y}"},
            "list": [1, {"a": "b"}]}
    out, unseen = substitute(body, Values({"A": "1"}))
    assert out is body
    assert unseen == ()


def test_only_the_path_to_a_variable_is_copied() -> None:
    spec = {"replicas": 1, "template": {"image": "web:${TAG}"}}
    body = {"metadata": {"name": "web"}, "spec": spec, "other": [{"a": "b"}]}
    out, _ = substitute(body, Values({"TAG": "1.2"}))
    assert out == {"metadata": {"name": "web"},
                   "spec": {"replicas": 1, "template": {"image": "web:1.2"}},
                   "other": [{"a": "b"}]}
    assert out["metadata"] is body["metadata"]
    assert out["other"] is body["other"]
    assert out["spec"] is not spec and spec["template"]["image"] == "web:${TAG}"


@settings(max_examples=300, deadline=None)
@given(_BODIES, st.lists(_VALUES, min_size=1, max_size=4))
def test_a_walk_s_substitutions_give_what_substituting_each_time_gives(
        body: Any, several: list[Values]) -> None:
    """The walk substitutes a body once per distinct values of the variables it names
    (Substitutions): one body under several clusters' values, in any order, again and
    again, gives what substitute gives each time."""
    memo = Substitutions()
    for values in several + several:
        out, unseen = memo.substitute(body, values)
        ref, ref_unseen = substitute(body, values)
        assert _canon(out) == _canon(ref)
        assert unseen == ref_unseen
        assert _kept(out, body) == _kept(ref, body)


@settings(max_examples=300, deadline=None)
@given(st.lists(_BODIES, min_size=1, max_size=4), _VALUES)
def test_texts_substituted_once_per_values_give_what_a_fresh_substitution_gives(
        bodies: list[Any], values: Values) -> None:
    """Each text is substituted once per values (``Values.texts``): bodies sharing texts,
    one after another and again, give what values that substituted nothing before give,
    the same variables named and unseen."""
    for body in bodies + bodies:
        names: set[str] = set()
        fresh_names: set[str] = set()
        out, unseen = substitute(body, values, names)
        fresh = Values(values.known, values.unknown)
        ref, ref_unseen = substitute(body, fresh, fresh_names)
        assert _canon(out) == _canon(ref)
        assert (unseen, names) == (ref_unseen, fresh_names)
        assert _kept(out, body) == _kept(ref, body)
    assert values == Values(values.known, values.unknown)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXTS.filter(lambda t: "${" in t), min_size=1, max_size=4),
       st.lists(_VALUES, min_size=1, max_size=4))
def test_texts_expanded_once_per_values_of_their_variables_give_what_expanding_gives(
        texts: list[str], several: list[Values]) -> None:
    """A text's expansion is remembered by the values of the variables it names, across
    Values (``_expanded``): texts under several values, in any order, again and again,
    give what expanding them gives, the same variables named and unseen."""
    for values in several + several:
        for text in texts:
            out, named, unseen = _expanded(text, values)
            missing: set[str] = set()
            ref = _reference(text, values, missing)
            ref_names: set[str] = set()
            expand(text, values.known, bool(values.unknown), set(), ref_names)
            assert _canon(out) == _canon(ref)
            assert (set(named), set(unseen)) == (ref_names, missing)


def test_values_of_variables_a_body_does_not_name_share_its_substitution() -> None:
    body = {"metadata": {"name": "web"}, "spec": {"image": "web:${TAG}"}}
    memo = Substitutions()
    first, _ = memo.substitute(body, Values({"TAG": "1.2", "CLUSTER": "prod"}))
    again, _ = memo.substitute(body, Values({"TAG": "1.2", "CLUSTER": "sbox"}))
    other, _ = memo.substitute(body, Values({"TAG": "1.3", "CLUSTER": "prod"}))
    assert again is first and first["spec"]["image"] == "web:1.2"
    assert other is not first and other["spec"]["image"] == "web:1.3"
    unseen = Values({}, ("Secret flux-system/vars (not in the repository)",))
    assert memo.substitute(body, unseen) == (body, ("TAG",))


def test_texts_read_as_flux_envsubst_reads_them() -> None:
    """fluxcd/pkg/envsubst: a default runs to its own ``}`` and may hold variables; an unset
    or empty variable takes its default (every default operator); ``$${`` is a literal
    ``${``; Flux's other functions are left as written."""
    known = {"APP": "scrypted", "EMPTY": "", "N": "3"}
    cases = {
        "${VOLSYNC_CLAIM:-${APP}}": ("scrypted", True),
        "${VOLSYNC_CLAIM:-${APP}-config}": ("scrypted-config", True),
        "${APP:-${UNSET}}": ("scrypted", True),
        "${EMPTY=x}": ("x", True), "${EMPTY:=x}": ("x", True), "${EMPTY:-x}": ("x", True),
        "${UNSET:+x}": ("x", True), "${EMPTY:-}": ("", True), "${UNSET}": ("", True),
        "a-${N}-${APP}": ("a-3-scrypted", False),
        "$${APP}": ("${APP}", False), "$${APP:-${N}}": ("${APP:-3}", False),
        "${APP,,}": ("${APP,,}", False), "${APP:0:3}": ("${APP:0:3}", False),
        "${UNSET:-${APP,,}}": ("${UNSET:-${APP,,}}", False), "${APP:-x": ("${APP:-x", False),
        "${A:-$5}": ("$5", True),
    }
    for text, expected in cases.items():
        assert expand(text, known, False, set(), set()) == expected, text
    missing: set[str] = set()
    names: set[str] = set()
    assert expand("${CLAIM:-${SECRET}}", {}, True, missing, names) == ("${SECRET}", True)
    assert (missing, names) == ({"SECRET"}, {"CLAIM", "SECRET"})


def test_a_default_written_quoted_reads_as_flux_reads_the_substituted_text() -> None:
    """vrozaksen/home-ops (judge round AV): `memory: "${ANUBIS_MEM_LIMIT:=\\"256Mi\\"}"` with
    the variable unset is `256Mi`: kustomize writes the value plain, Flux substitutes the
    text (`memory: "256Mi"`), YAML reads the quotes. A value go-yaml writes quoted itself
    (`: ` inside) keeps the quotes as its characters."""
    values = Values({"SET": "1Gi"})
    assert _expanded('${MEM:="256Mi"}', values)[0] == "256Mi"
    assert _expanded("${MEM:-'256Mi'}", values)[0] == "256Mi"
    assert _expanded('${SET:="256Mi"}', values)[0] == "1Gi"
    assert _expanded('${MEM:="a: b"}', values)[0] == '"a: b"'
    assert _expanded('x-${MEM:="256Mi"}', values)[0] == 'x-"256Mi"'  # (not the whole value)


_PIECES = ["${A}", "${A:-", "${B:=", "${C=", "${N:+", "${U-", "}", "$", "{", "x", "-", ":",
           "$${", "${", "${EMPTY}", "${A,,}", "é"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join), _VALUES,
       st.booleans())
def test_the_fast_reading_of_a_plain_default_is_the_parser_s(text: str, values: Values,
                                                             count_unset: bool) -> None:
    """An expression whose default holds no ``$`` is read by one regular expression; the
    parser reads it the same: the same text, the same variables named, unseen and unset."""
    def run(fast: bool) -> tuple[Any, ...]:
        missing: set[str] = set()
        names: set[str] = set()
        unset: set[str] | None = set() if count_unset else None
        out = expand(text, values.known, bool(values.unknown), missing, names, unset,
                     fast=fast)
        return out, missing, names, unset

    assert run(True) == run(False)


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(k)
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


@pytest.mark.parametrize("text", [
    'a: "\\x24{A}"\n', 'a: "\\u0024{A}"\n', 'a: "\\U00000024{A}"\n', 'a: "$\\x7b A}"\n',
    'a: "$\\\n  {A}"\n', "a: |\n  ${A}\n", "${A}: 1\n", "a: '$${A}'\n"])
def test_a_text_that_spells_a_variable_is_told(text: str) -> None:
    lf = load(FileRecord("f.yaml", "blob", text.encode()))
    assert any("${" in t for t in _texts(lf.documents[0].value))
    assert variable_documents(lf) == {0}


@given(st.recursive(st.text(alphabet="${}ab \\\n\t\"'é", max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.text(alphabet="${}ab", max_size=4), inner, max_size=3)),
       st.sampled_from([None, '"', "'", "|", ">"]), st.integers(10, 40))
def test_a_text_without_a_spelled_variable_reads_as_none(value: Any, style: str | None,
                                                           width: int) -> None:
    # YAML as PyYAML writes it in every style: if no text of what it reads holds a ``${``
    # the check may say either; if one does, the check says so
    text = yaml.safe_dump({"v": value}, default_style=style, width=width, allow_unicode=False)
    lf = load(FileRecord("f.yaml", "blob", text.encode()))
    if lf.documents and any("${" in t for t in _texts(lf.documents[0].value)):
        assert variable_documents(lf) == {0}


def test_an_optional_source_the_repository_lacks_leaves_its_variables_unseen() -> None:
    """New-user trial twenty-seven: `optional: true` on Secret cluster-secrets, which the
    repository does not hold (made outside it, or encrypted in it): its variables were
    substituted as empty (`hass.${SECRET_DOMAIN_INTERNAL}` read `hass.`); the Secret may well
    be in the cluster, so their values are not seen, as a required source's are not."""
    spec = {"postBuild": {"substitute": {"DOMAIN": "example.net"}, "substituteFrom": [
        {"kind": "Secret", "name": "cluster-secrets", "optional": True}]}}
    values = post_build_values(spec, "flux-system", lambda kind, ns, name: None)
    assert values is not None and values.unknown == (
        "Secret flux-system/cluster-secrets (postBuild.substituteFrom, optional, not in the "
        "repository or encrypted)",)
    body, unseen = substitute({"host": "hass.${SECRET_DOMAIN_INTERNAL}", "d": "${DOMAIN}"},
                              values)
    assert body == {"host": "hass.${SECRET_DOMAIN_INTERNAL}", "d": "example.net"}
    assert unseen == ("SECRET_DOMAIN_INTERNAL",)


def test_a_source_read_before_one_the_repository_lacks_may_be_overridden() -> None:
    """Judge round CM: sob/home-ops' cluster-settings ConfigMap holds SECRET_DOMAIN:
    example.com, a dummy; cluster-secrets, a Secret its ExternalSecret makes from 1Password
    and listed after it, holds the real one. kustomize-controller reads the sources in
    order, a later key over an earlier: the ConfigMap's keys are unseen once a source
    whose keys are not seen follows (21 routes were "unattached" to `*.example.com`).
    Keys read after it, and `substitute` (applied last), are read as written."""
    config = {"cluster-settings": {"SECRET_DOMAIN": "example.com", "TZ": "UTC"},
              "late": {"ZONE": "eu"}}
    spec = {"postBuild": {"substitute": {"APP": "web"}, "substituteFrom": [
        {"kind": "ConfigMap", "name": "cluster-settings"},
        {"kind": "Secret", "name": "cluster-secrets"},
        {"kind": "ConfigMap", "name": "late"}]}}
    values = post_build_values(spec, "flux-system", lambda kind, ns, name: config.get(name))
    assert values is not None
    body, unseen = substitute({"host": "books.${SECRET_DOMAIN}", "tz": "${TZ}",
                               "zone": "${ZONE}", "app": "${APP}"}, values)
    assert body == {"host": "books.${SECRET_DOMAIN}", "tz": "${TZ}", "zone": "eu",
                    "app": "web"}
    assert unseen == ("SECRET_DOMAIN", "TZ")
    alone = post_build_values({"postBuild": {"substituteFrom": [
        {"kind": "ConfigMap", "name": "cluster-settings"}]}}, "flux-system",
        lambda kind, ns, name: config.get(name))
    assert alone is not None and substitute({"h": "${SECRET_DOMAIN}"}, alone)[0] == {
        "h": "example.com"}


def test_the_variables_a_substitution_emptied_are_told_beside_ones_it_set() -> None:
    """Judge round DQ (monosense-io/k8s-gitops): a backup script names `${S3_ENDPOINT}`, which
    no source sets, beside `${CLUSTER}`, which one does: the emptied ones were not told, the
    text being no longer the written one with every variable removed."""
    from reviewbot.model.substitute import emptied

    written = "mc alias set s3 ${S3_ENDPOINT}\nmc ls s3/${BUCKET}/${CLUSTER}/base/\n"
    value = "mc alias set s3 \nmc ls s3//shared-pg/base/\n"
    assert emptied(written, value) == []  # (which are unset is not known)
    assert emptied(written, value, {"S3_ENDPOINT", "BUCKET"}) == ["${S3_ENDPOINT}", "${BUCKET}"]
    # a value the unset ones' emptiness does not explain: none told
    assert emptied(written, "mc alias set s3 x\nmc ls s3//shared-pg/base/\n",
                   {"S3_ENDPOINT", "BUCKET"}) == []
    assert emptied("${A}-${B}", "-", None) == ["${A}", "${B}"]
