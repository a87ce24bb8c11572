"""What every output shares: file names as outputs show them, the cap on findings per rule,
and what is said of the changed files no cluster receives. The report itself
(:class:`~reviewbot.engine.outcome.Report`) is the engine's outcome."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from reviewbot.engine.findings import Finding
from reviewbot.engine.outcome import Report, Unapplied
from reviewbot.sources.tree import shown_path
from reviewbot.words import plural

MAX_PER_RULE = 1000  # findings of one rule an output shows; the rest are counted by rule


def shown(report: Report) -> Report:
    """``report`` with every file name as outputs show it (``shown_path``: a name that is no
    UTF-8 in git's quoting, losslessly); the same report when every name is UTF-8."""
    review = report.review
    names = [f.file for f in (*report.findings, *(review.fixed if review else ()))]
    names += [s.path for s in report.skipped] + [q.file for q in report.quiet]
    names += [str(e.get(k)) for e in (review.diff if review else ())
              for k in ("file", "base_file") if e.get(k)]
    if all(shown_path(n) == n for n in names):
        return report
    if review is not None:
        review = replace(
            review, diff=shown_entries(review.diff),
            fixed=tuple(replace(f, file=shown_path(f.file)) for f in review.fixed))
    return replace(
        report,
        findings=tuple(replace(f, file=shown_path(f.file)) for f in report.findings),
        skipped=tuple(replace(s, path=shown_path(s.path)) for s in report.skipped),
        quiet=tuple(replace(q, file=shown_path(q.file)) for q in report.quiet),
        review=review,
        sources={shown_path(k): v for k, v in report.sources.items()},
    )


def shown_entries(entries: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Diff entries (``DiffResult.as_json``) with their file names as outputs show them."""
    out = []
    for entry in entries:
        entry = dict(entry)
        for key in ("file", "base_file"):
            if isinstance(entry.get(key), str):
                entry[key] = shown_path(entry[key])
        out.append(entry)
    return tuple(out)


def capped(report: Report) -> Report:
    """``report`` with at most MAX_PER_RULE findings of each rule, new ones first, then in
    file and line order; the rest counted by rule in ``not_shown`` (every output says how
    many). The exit code is the command's, from every finding."""
    limit = MAX_PER_RULE
    counts = Counter(f.rule for f in report.findings)
    if all(n <= limit for n in counts.values()):
        return report
    order = sorted(range(len(report.findings)),
                   key=lambda i: not (report.findings[i].new or report.findings[i].worse))
    taken: Counter[str] = Counter()
    keep: set[int] = set()
    for i in order:
        rule = report.findings[i].rule
        if taken[rule] < limit:
            taken[rule] += 1
            keep.add(i)
    left = {rule: n - limit for rule, n in sorted(counts.items()) if n > limit}
    hidden = Counter(f.severity for i, f in enumerate(report.findings) if i not in keep)
    return replace(report, findings=tuple(f for i, f in enumerate(report.findings) if i in keep),
                   not_shown={**report.not_shown, **left},
                   stats={**report.stats, NOT_SHOWN_SEVERITIES: dict(hidden)})


# ``Report.stats`` key: the findings ``capped`` left out, by severity (a count line counts them)
NOT_SHOWN_SEVERITIES = "not-shown-severities"


def not_shown_lines(report: Report) -> list[str]:
    """One line per rule whose findings were capped (``capped``)."""
    return [
        f"{n:,} more {rule} finding{'s' if n != 1 else ''} not shown: an output shows "
        f"the first {MAX_PER_RULE:,} of a rule"
        for rule, n in report.not_shown.items()
    ]


VALUES_PREFIX = "HelmValues/"  # reviewbot's objects for the values a Helm chart is given


def existing_said(existing: int, shown: int, scope: str, where: str) -> str:
    """How a review's count says its findings already on the base branch, ``shown`` of the
    ``existing`` (``where``: "above" in the text, "below" in the summary): all shown, some
    (scope ``changed``: those on what the pull request changes), or none."""
    if shown >= existing:
        return f" (shown {where})"
    if shown:
        return (f" ({shown} of them shown {where}, on what this pull request changes; the "
                f"rest not shown: scope {scope})")
    return f" (not shown: scope {scope})"


def object_words(ref: str, file: str = "") -> tuple[str, str]:
    """An object as a reader knows it, as (words before the name, the name): ``Kind/ns/name``
    is ("", ref); a values file a Helm chart is given (``HelmValues/ns/<file stem>``, read
    from ``file``) is ("Helm values file", its path), other values (``valuesInline``) are
    ("Helm values", "ns/name")."""
    if ref.startswith(VALUES_PREFIX):
        name = ref[len(VALUES_PREFIX):]
        if file and name.rsplit("/", 1)[-1] == file.rsplit("/", 1)[-1].rsplit(".", 1)[0]:
            return "Helm values file", file
        return "Helm values", name
    return "", ref



KUSTOMIZE_API = "kustomize.config.k8s.io/"  # a kustomization file's apiVersion group


def entry_words(entry: Mapping[str, Any]) -> tuple[str, str]:
    """A diff entry's object as a reader knows it (:func:`object_words`); a kustomization
    file (the diff's ``Kustomization/<path>``, which would read as a Flux Kustomization) is
    ("kustomize file", its path)."""
    if entry.get("kind") == "Kustomization" and str(entry.get("apiVersion") or "").startswith(
            KUSTOMIZE_API) and entry.get("namespace") is None:
        return "kustomize file", str(entry.get("file") or entry.get("base_file")
                                     or entry.get("name"))
    return object_words(str(entry.get("object")),
                        str(entry.get("file") or entry.get("base_file") or ""))


UNAPPLIED_SHOWN = 3  # folders of changed files no cluster receives that an output names


@dataclass(frozen=True)
class UnappliedSaid:
    """What an output says of the changed files no cluster receives (bounded: the first
    ``UNAPPLIED_SHOWN`` folders named, the rest counted): the same words in every medium."""

    files: int  # every such changed file
    shown: tuple[Unapplied, ...]  # the folders named
    more_folders: int  # the folders not named
    more_files: int  # the files in them

    @staticmethod
    def of(unapplied: Sequence[Unapplied]) -> UnappliedSaid | None:
        if not unapplied:
            return None
        shown, rest = tuple(unapplied[:UNAPPLIED_SHOWN]), unapplied[UNAPPLIED_SHOWN:]
        return UnappliedSaid(sum(u.files for u in unapplied), shown, len(rest),
                             sum(u.files for u in rest))

    def headline(self, doing: str) -> str:
        """"2 changed files reach no cluster, so this review judges nothing in them"
        (``doing``: "review judges", "diff shows")."""
        verb = "reach" if self.files != 1 else "reaches"
        return (f"{plural(self.files, 'changed file')} {verb} no cluster, so this {doing} "
                f"nothing in {self.them}")

    @property
    def them(self) -> str:
        return "them" if self.files != 1 else "it"

    def more(self) -> str:
        """"and 4 more folders (9 files), listed under skipped", or nothing."""
        if not self.more_folders:
            return ""
        return (f"and {plural(self.more_folders, 'more folder')} "
                f"({plural(self.more_files, 'file')}), listed under skipped")

    def lint_command(self) -> str:
        """The command that lints the named folders as written."""
        import shlex  # here: shlex is imported by what quotes or splits (0.3% of a one-file lint)

        return shlex.join(["reviewbot", "lint", *(u.path for u in self.shown)])


# findings alike past this many words apart are each shown whole
_ALIKE_WORDS = 6


def alike_runs(findings: Sequence[Finding]) -> list[tuple[Finding, list[Finding]]]:
    """Each finding with those after it at its place (line, column, rule, severity, kind,
    fix, new, worse) whose messages differ from its own in a name (:func:`_differing`): one
    missing ingress for five destination pods is one problem (new-user trial eleven: 5 of 22
    errors at one line, each with the same fix), shown once with the others named; with one
    suggestion, offered once (new-user trial twenty-six: a base's probe two overlays build,
    two comments with one suggestion). The counts and ``--format json`` keep each."""
    out: list[tuple[Finding, list[Finding]]] = []
    for f in findings:
        if out:
            first, others = out[-1]
            if (first.file, first.line, first.column, first.rule, first.severity, first.kind,
                    first.new, first.worse) == (
                    f.file, f.line, f.column, f.rule, f.severity, f.kind, f.new,
                    f.worse) and f.fix and same_fix(first, f) and (
                    first.suggestion == f.suggestion) and (
                    _differing([first.message, *(o.message for o in others), f.message])
                    is not None or _same_told(first, others, f) or renamed_alike(
                        first, f, lambda g: g.message)):
                others.append(f)
                continue
        out.append((f, []))
    return out


def without_namespace(f: Finding, text: str) -> str:
    """``text`` (``f``'s message, fix or field path) with each mention of ``f``'s object's own
    namespace as a name (``shop-prod/redis``, "in shop-prod"; not a word of which it is part)
    set aside: what findings one base line makes in each namespace its overlays build it
    into (staging, prod) say alike."""
    parts = f.object.split("/")
    if len(parts) != 3 or not parts[1] or parts[1] not in text:
        return text
    return re.sub(rf"(?<![\w.-]){re.escape(parts[1])}(?![\w-])", "\0", text)


def renamed(a: Finding, b: Finding) -> tuple[str, str] | None:
    """Whether ``b``'s object is ``a``'s as another build names it: of one kind, its name
    ``a``'s with a prefix or suffix kustomize's ``namePrefix``/``nameSuffix`` adds (or ``a``'s
    is ``b``'s so): the prefix and the suffix, ``("", "")`` for one name; None for objects
    otherwise named (new-user trial seventy-four W1 read one base line's DNS policy in
    staging's ``stg-`` overlay apart from dev's and prod's)."""
    ka, kb = a.object.split("/"), b.object.split("/")
    if len(ka) != len(kb) or len(ka) < 2 or ka[0] != kb[0]:
        return None
    na, nb = ka[-1], kb[-1]
    if na == nb:
        return "", ""
    if ka[1:-1] == kb[1:-1] and a.clusters == b.clusters:
        return None  # (one namespace and cluster: two objects, `qdrant` and `qdrant-headless`,
        # not one build's copy of the other; new-user trial seventy-six W5)
    short, long = (na, nb) if len(na) <= len(nb) else (nb, na)
    if not short:
        return None
    at = long.find(short)
    while at >= 0:
        prefix, suffix = long[:at], long[at + len(short):]
        if _affix(prefix, suffix):
            return prefix, suffix
        at = long.find(short, at + 1)
    return None


def _affix(prefix: str, suffix: str) -> bool:
    """Whether a prefix and a suffix are what a build adds to a name: nothing, or ending
    (starting) at a separator as a name's parts are written."""
    return (not prefix or prefix[-1] in "-.") and (not suffix or suffix[0] in "-.")


def unrenamed(f: Finding, text: str, affix: tuple[str, str]) -> str:
    """``text`` of ``f`` with its namespace set aside (:func:`without_namespace`) and the
    prefix and suffix of :func:`renamed` taken from each name it writes."""
    text = without_namespace(f, text)
    prefix, suffix = affix
    if prefix:
        text = re.sub(rf"(?<![\w.-]){re.escape(prefix)}(?=\w)", "", text)
    if suffix:
        text = re.sub(rf"(?<=\w){re.escape(suffix)}(?![\w-])", "", text)
    return text


def renamed_alike(a: Finding, b: Finding, *texts: Callable[[Finding], str]) -> bool:
    """Whether ``a`` and ``b`` are one source's finding in two builds: their objects
    :func:`renamed` of each other, each of ``texts`` (message, fix, field path) the same
    once their namespaces and the names' prefix and suffix are set aside."""
    affix = renamed(a, b)
    return affix is not None and all(
        unrenamed(a, text(a), affix) == unrenamed(b, text(b), affix) for text in texts)


def same_fix(a: Finding, b: Finding) -> bool:
    """Whether ``a`` and ``b`` fix alike: the same fix, or one that names each finding's own
    namespace where the other names its own ("Widen the ingress rule of shop-prod/redis",
    "... of shop-staging/redis": new-user trial forty-two read one base line's egress error
    once per overlay, their fixes apart by the namespace only), of one kind and name."""
    return a.fix == b.fix or renamed_alike(a, b, lambda f: f.fix)


def alike_said(first: Finding, others: Sequence[Finding],
               escape: Callable[[str], str]) -> str:
    """The sentence a finding shown for :func:`alike_runs`' ``others`` too ends with: "2 more
    at this line with this fix, alike: vllm-dp, vllm-main" (each name through ``escape``,
    the output's own: a terminal's, Markdown's); "with this fix in its own namespace" when
    their fixes name each one's own (:func:`same_fix`)."""
    messages = [first.message, *(o.message for o in others)]
    subjects = (_differing(messages) or _first_apart(messages))[1:]
    if not subjects:  # one message, said of several objects: the objects tell them apart
        subjects = [o.object for o in others]
    elif all(o.object == first.object and o.clusters and o.clusters != first.clusters
             for o in others):  # one object of each cluster's build: which cluster each is
        # (new-user trial forty-eight read prod's budget as "alike: 2 pods")
        from reviewbot.model.objects import clusters_phrase

        subjects = [f"{clusters_phrase(list(o.clusters))} ({subject})"
                    for o, subject in zip(others, subjects, strict=True)]
    # a subject that is its object's name, in another namespace than the first's, with its
    # namespace (new-user trial seventy-four W4 read "alike: api, stg-api" of three overlays)
    first_ns = first.object.split("/")[1] if first.object.count("/") == 2 else None
    subjects = [f"{parts[1]}/{x}" if len(parts := o.object.split("/")) == 3 and x == parts[2]
                and parts[1] != first_ns else x for o, x in zip(others, subjects, strict=False)]
    subjects = list(dict.fromkeys(subjects))  # one object of two clusters' builds: once
    more = f" and {len(subjects) - 3} more" if len(subjects) > 3 else ""
    fix = ("this fix" if all(o.fix == first.fix for o in others) else
           "this fix in its own namespace")
    return (f"{len(others)} more at this line with {fix}, alike: "
            f"{', '.join(escape(x) for x in subjects[:3])}{more}")


def _same_told(first: Finding, others: Sequence[Finding], f: Finding) -> bool:
    """Whether ``f`` says word for word what ``first`` (and ``others``) say, of another
    object (one file two namespaces' builds make alike: a new-user trial read one probe
    finding twice, told apart by the object alone)."""
    return f.message == first.message and all(o.message == f.message for o in others) and (
        f.object != first.object)


def _first_apart(messages: list[str]) -> list[str]:
    """Each message's first word apart from the first message's (the subject of findings
    :func:`renamed_alike` that differ in more words than :func:`_differing` reads): when
    every message has as many words and each differs somewhere; else nothing."""
    words = [m.split(" ") for m in messages]
    if len({len(w) for w in words}) != 1:
        return []
    apart = [next((x for x, y in zip(w, words[0], strict=True) if x != y), None)
             for w in words[1:]]
    if any(x is None for x in apart):
        return []
    first = next(y for x, y in zip(words[1], words[0], strict=True) if x != y)
    return [_unbracketed(x.rstrip(",:;.")) for x in [first, *apart] if x is not None]


def _unbracketed(text: str) -> str:
    """``text`` without a bracket it closes or opens alone (a name cut from "(cluster
    https://staging:6443)": new-user trial fifty read "alike: https://staging:6443)"), nor
    the possessive it ends with (trial seventy-three read "alike: gpu-west-v100-1's")."""
    text = text.removesuffix("'s")
    if text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1]
    if text.startswith("(") and text.count("(") > text.count(")"):
        text = text[1:]
    return text


def _differing(messages: list[str]) -> list[str] | None:
    """What tells each message apart: when all have as many words and differ in at most
    three places (a destination named twice, once in the doubt), each one's first differing
    word; else the words between those all of them begin and end with, when every message
    differs there in at most :data:`_ALIKE_WORDS` words; else None."""
    words = [m.split(" ") for m in messages]
    if len({len(w) for w in words}) == 1:
        at = [i for i in range(len(words[0])) if any(w[i] != words[0][i] for w in words)]
        if 0 < len(at) <= 3:
            # the words that differ side by side from the first are one name ("Service
            # data/redis": a kind and a name, new-user trial thirty-four)
            run = next((n for n in range(len(at), 0, -1) if at[n - 1] == at[0] + n - 1), 1)
            return [_unbracketed(" ".join(w[at[0]:at[0] + run]).rstrip(",:;.")) or w[at[0]]
                    for w in words]
    shortest = min(len(w) for w in words)
    start = 0
    while start < shortest and all(w[start] == words[0][start] for w in words):
        start += 1
    end = 0
    while end < shortest - start and all(w[-1 - end] == words[0][-1 - end] for w in words):
        end += 1
    middles = [w[start:len(w) - end] for w in words]
    if any(not m or len(m) > _ALIKE_WORDS for m in middles):
        return None
    return [" ".join(m) for m in middles]
