"""`reviewbot diff` and `reviewbot review`: what a change does, and what it newly breaks.

``diff`` compares the manifests of two git refs (or a ref and the work tree) object by
object. ``review`` is the pull-request job:

1. base and head come from ``--base/--head`` or the CI event file
   (:mod:`reviewbot.sources.event`, read once: publishing takes the pull request from the
   same read); the base side is the merge base of the two, and nothing is checked out;
2. the configuration is read from the base tree, so a PR cannot switch a rule off for
   itself; the PR's own changes to it are reported in the summary;
3. the rules run on the whole base tree and the whole head tree; a head finding is *new*
   when no base finding has the same rule, object and field path (list indices replaced
   by item names, renamed objects followed), so a finding on an object the PR did not touch
   is new exactly when the PR caused it;
4. the findings are written (stdout, ``--output``, ``--artifact``) before any forge call;
   a forge failure is reported and never changes the exit code, which counts new findings.

With ``--cache``, a review of the same two trees with the same inputs made before is read
back (:mod:`reviewbot.commands.review_cache`) once the trees are listed and the
configuration read: before any other blob is read or any file parsed.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from reviewbot.commands.common import command_line_settings, file_loader, guard_binaries
from reviewbot.commands.review_cache import freeze_report, thaw_report
from reviewbot.config import CONFIG_NAME, Config, load_config_file, parse_config
from reviewbot.diff.objects import (
    Item,
    TreeDiff,
    compare,
    diff_items,
    items_of,
)
from reviewbot.engine.findings import Finding, quiet_notes, sort_key
from reviewbot.engine.fixer import with_suggestions
from reviewbot.engine.identity import fixed, mark_new
from reviewbot.engine.registry import all_rules
from reviewbot.engine.run import (
    Memo,
    Result,
    Suppressions,
    analyze,
    load_model,
    make_finding,
    review_key,
    start_rules,
)
from reviewbot.errors import EXIT_FINDINGS, EXIT_OK, ReviewbotError
from reviewbot.escape import term
from reviewbot.load.cache import ParseCache
from reviewbot.load.loader import decode_text
from reviewbot.model.objects import Model, PodTemplate
from reviewbot.netpol.diff import review_changes
from reviewbot.netpol.ingress import IngressController
from reviewbot.output import emit, exit_code, use_color
from reviewbot.report.base import ConfigReview, Report, ReviewSummary, shown_entries
from reviewbot.report.difftext import render_diff_text
from reviewbot.report.render import render
from reviewbot.sources.event import CiEvent, ci_event, event_refs
from reviewbot.sources.tree import (
    PendingTree,
    Tree,
    diff_text,
    git_tree,
    merge_base,
    read_blobs,
    repo_root,
    resolve_ref,
    set_max_file_bytes,
    work_tree,
)

SUMMARY_LIMIT = 60_000  # the forge keeps the summary whole up to this, folds after it
_TOKENS = ("GITHUB_TOKEN", "FORGEJO_TOKEN", "GITEA_TOKEN", "INPUT_TOKEN")
_DIFF_FORMATS = ("text", "json", "markdown")


# ---------------------------------------------------------------- refs and trees


@dataclass(frozen=True)
class Sides:
    root: Path
    base_ref: str  # as given (for display)
    base: str  # the merge base sha
    head: str | None  # head sha, None for the work tree


def _safe_ref(ref: str, what: str) -> str:
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n\r"):
        raise ReviewbotError(f"invalid {what} ref {ref[:80]!r}")
    return ref


def _resolve(root: Path, ref: str, what: str) -> str:
    try:
        return resolve_ref(root, _safe_ref(ref, what), top=True)
    except ReviewbotError as exc:
        if not _in_git(root):
            raise ReviewbotError(
                f"{root} is not in a git repository: diff and review compare git refs "
                "(--repo DIR names the repository)") from None
        raise ReviewbotError(
            f"cannot resolve the {what} {ref[:80]!r}: {exc.message} (in CI, fetch the full "
            "history: actions/checkout with fetch-depth: 0)"
        ) from None


def review_sides(args: argparse.Namespace, event: CiEvent | None) -> Sides:
    """The refs to compare: ``--base``/``--head``, else the CI ``event``'s."""
    root = repo_root(Path(args.repo))
    event_base, event_head = (None, None) if args.base and args.head else event_refs(event)
    base_ref = args.base or event_base
    head_ref = args.head or event_head
    if not base_ref:
        raise ReviewbotError(
            "no base to compare with: pass --base REF, or run on a pull_request event "
            "(GITHUB_EVENT_PATH / FORGEJO_EVENT_PATH)"
        )
    base_sha = _resolve(root, base_ref, "base")
    head_sha = _resolve(root, head_ref, "head") if head_ref else None
    try:
        merge = merge_base(root, base_sha, head_sha or _resolve(root, "HEAD", "head"), top=True)
    except ReviewbotError as exc:
        hint = ("a shallow clone? fetch with fetch-depth: 0" if _shallow(root)
                else "the two have no common history (unrelated histories)")
        raise ReviewbotError(
            f"no merge base of {base_ref[:80]} and {head_ref or 'HEAD'}: {exc.message} "
            f"({hint})"
        ) from None
    return Sides(root, base_ref, merge, head_sha)


def _in_git(root: Path) -> bool:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"],
                          capture_output=True, check=False).returncode == 0


def _shallow(root: Path) -> bool:
    import subprocess

    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-shallow-repository"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip() != "false"


def _is_ref(root: Path, ref: str) -> bool:
    try:
        _resolve(root, ref, "head")
    except ReviewbotError:
        return False
    return True


def repo_prefixes(paths: Sequence[str], root: Path) -> list[str]:
    """PATH arguments (relative to the current directory) as repository-relative prefixes."""
    out = []
    for raw in paths:
        rel = _in_repo(Path(raw), root)
        if rel is None:
            raise ReviewbotError(f"{raw} is outside the repository {root}")
        if rel in ("", "."):
            return []
        out.append(rel)
    return out


def head_tree(sides: Sides, prefixes: Sequence[str], base: Tree | None = None,
              pending: PendingTree | None = None) -> Tree:
    """The head side; blobs the ``base`` tree already read are not read again (``pending``:
    the head's listing, started with the base's blob ids skipped)."""
    if sides.head is None:
        return work_tree(sides.root, prefixes)
    known = ({f.blob: f.data for f in (*base.files, *base.texts)} if base is not None
             else None)
    if pending is not None:
        return pending.tree(known)
    return git_tree(sides.root, sides.head, prefixes, top=True, known=known)


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class ConfigSides:
    config: Config  # what the review applies: the base branch's
    source: str  # where it came from, for the summary
    changes: tuple[dict[str, Any], ...] = ()  # the PR's own changes to it
    head_error: str | None = None  # the PR's config does not parse


def _in_repo(path: Path, root: Path) -> str | None:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def _blob(root: Path, ref: str | None, rel: str, tree: Tree | PendingTree | None = None,
          whole: bool = False) -> bytes | None:
    """The content of ``rel`` at ``ref`` (None: the work tree); taken from ``tree`` (that
    side, read or listed) when it holds the file, or knows it is absent (``whole``: read
    without path prefixes)."""
    if isinstance(tree, PendingTree) and ref is not None:
        sha = tree.sha_of(rel)
        if sha is not None:
            return read_blobs(root, [sha]).get(sha)
        if whole and rel not in tree.paths:
            return None
    elif tree is not None and ref is not None:
        found = next((f.data for f in tree.files if f.path == rel), None)
        if found is not None or (whole and rel not in tree.paths):
            return found
    if ref is None:
        target = root / rel
        if target.is_file() and not target.is_symlink():
            return target.read_bytes()
        return None
    tree = git_tree(root, ref, [rel], top=True)
    return next((f.data for f in tree.files if f.path == rel), None)


def review_config(
    args: argparse.Namespace, sides: Sides,
    trees: tuple[Tree | PendingTree, Tree | PendingTree | None, bool] | None = None,
) -> ConfigSides:
    """The base tree's configuration, and how the head changes it (reported, not applied).

    ``trees``: the base and head trees when already read or listed, and whether they are
    whole (read without path prefixes)."""
    base_tree, head_side, whole = trees if trees is not None else (None, None, False)
    rel: str | None = CONFIG_NAME
    if args.config:
        rel = _in_repo(Path(args.config), sides.root)
        if rel is None:  # outside the repository: the workflow's own file, not the PR's
            return ConfigSides(load_config_file(Path(args.config)), args.config)
    assert rel is not None
    base_data = _blob(sides.root, sides.base, rel, base_tree, whole)
    base = parse_config(base_data, f"{rel} (base)") if base_data is not None else Config()
    source = f"`{rel}` of the base branch" if base_data is not None else "the defaults"
    head_data = _blob(sides.root, sides.head, rel, head_side, whole)
    if head_data == base_data:
        return ConfigSides(base, source)
    if head_data is None:
        changes = ({"path": rel, "op": "removed"},)
        return ConfigSides(base, source, changes)
    try:
        head = parse_config(head_data, f"{rel} (head)")
    except ReviewbotError as exc:
        return ConfigSides(base, source, (), exc.message)
    found = compare(dict(base.raw), dict(head.raw))
    return ConfigSides(base, source, tuple(c.as_json() for c in found))


def base_schema_locations(config: Config, sides: Sides) -> Config:
    """``config`` with its repository-relative ``schema-locations`` read from the base commit,
    like the configuration itself: a pull request cannot weaken the schemas it is checked
    against. The base's schema files are written to a temporary folder (removed at exit)."""
    schema = config.section("rules").get("schema")
    locations = schema.get("schema-locations") if isinstance(schema, dict) else None
    if not isinstance(locations, list) or not locations:
        return config
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="reviewbot-schemas-"))
    atexit.register(shutil.rmtree, folder, True)
    out: list[str] = []
    for raw in locations:
        text = str(raw)
        if text == "default" or text.startswith(("http://", "https://")) or os.path.isabs(text):
            out.append(text)
            continue
        fixed = text.split("{{")[0]
        prefix = posixpath.normpath(fixed if "{{" not in text else posixpath.dirname(fixed))
        if prefix.startswith(".."):
            out.append(text)  # outside the repository: not the pull request's
            continue
        _copy_base_files(sides, "" if prefix == "." else prefix, folder)
        out.append(str(folder / text))
    return config.with_options("schema", {"schema-locations": out})


def _copy_base_files(sides: Sides, prefix: str, folder: Path) -> None:
    import subprocess

    from reviewbot.sources.tree import read_blobs

    listing = subprocess.run(
        ["git", "-C", str(sides.root), "ls-tree", "-r", "-z", "--full-tree", sides.base, "--",
         *([prefix] if prefix else [])], capture_output=True, check=False).stdout
    wanted: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.decode(errors="replace").split()
        if len(fields) == 3 and fields[0] in ("100644", "100755") and name.endswith(b".json"):
            wanted.append((name.decode("utf-8", "surrogateescape"), fields[2]))
    blobs = read_blobs(sides.root, [sha for _, sha in wanted])
    for path, sha in wanted:
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blobs.get(sha, b""))


# ---------------------------------------------------------------- new findings


def select(findings: Iterable[Finding], scope: str, touched: frozenset[str],
           touched_files: frozenset[str]) -> list[Finding]:
    """``new``: new findings; ``changed``: those plus all on touched objects; ``all``."""
    def wanted(f: Finding) -> bool:
        if scope == "all" or f.new:
            return True
        touches = f.object in touched or (not f.object and f.file in touched_files)
        return scope == "changed" and touches

    return sorted((f for f in findings if wanted(f)), key=sort_key)


def _diff(base: Model, head: Model) -> TreeDiff:
    """The diff of two models (``diff_items`` of their ``items_of``), without the identities
    whose one item on each side is the same parsed body in the same file (files both sides
    share: the diff would find nothing there).

    Objects are told apart before any diff item is made for them (most of a tree), from the
    models' identity index; kustomization files and values documents are diff items first.
    """
    base_rest, head_rest = items_of(replace(base, objects=[])), items_of(replace(head, objects=[]))
    others = {i.identity for i in base_rest} | {i.identity for i in head_rest}
    shared: set[tuple[str, str, str, str]] = set()
    for identity, found in base.by_identity.items():
        other = head.by_identity.get(identity)
        if (len(found) == 1 and other is not None and len(other) == 1
                and identity not in others and found[0].body is other[0].body
                and found[0].file == other[0].file):
            shared.add(identity)

    def objects_only(model: Model) -> Model:
        kept = [o for o in model.objects if o.identity not in shared]
        return replace(model, objects=kept, kustomizations=[], files={}, derived={})

    base_items = items_of(objects_only(base)) + base_rest
    head_items = items_of(objects_only(head)) + head_rest
    groups: dict[tuple[str, str, str, str], list[Item]] = {}
    for item in base_items:
        groups.setdefault(item.identity, []).append(item)
    heads: dict[tuple[str, str, str, str], list[Item]] = {}
    for item in head_items:
        heads.setdefault(item.identity, []).append(item)
    same = set()
    for identity, olds in groups.items():
        news = heads.get(identity)
        if len(olds) == 1 and news is not None and len(news) == 1:
            b, h = olds[0], news[0]
            if b.body is h.body and b.file == h.file and (b.strip, b.secret) == (h.strip, h.secret):
                same.add(identity)
    return diff_items([i for i in base_items if i.identity not in same],
                      [i for i in head_items if i.identity not in same])


def changed_files(base: Tree, head: Tree) -> frozenset[str]:
    before = {f.path: f.blob for f in base.files}
    return frozenset(f.path for f in head.files if before.get(f.path) != f.blob)


def change_findings(diff: TreeDiff, base_model: Model, head_model: Model, config: Config,
                    only: Sequence[str] = ()) -> list[Finding]:
    """Diff-time checks: a rule module may define ``check_change(old_pods, new_pods)``
    (image-digest: a tag changed while the digest stayed), run on every modified object, or,
    with ``CHANGE_INPUT = "tree"``, ``check_change(diff, base_model, head_model, options)``,
    run once on the whole change (change-safety: deletions, immutable fields, suspensions).
    """
    out: list[Finding] = []
    rules = [r for r in all_rules() if config.settings(r).enabled and (not only or r.id in only)]
    base_pods, head_pods = _pods_by_ref(base_model), _pods_by_ref(head_model)
    for rule in rules:
        check = getattr(rule.module, "check_change", None)
        if check is None:
            continue
        settings = config.settings(rule)
        if getattr(rule.module, "CHANGE_INPUT", None) == "tree":
            for violation in check(diff, base_model, head_model, settings.options):
                found = make_finding(rule, violation, settings.severity, head_model)
                out.append(replace(found, new=True))
            continue
        for entry in diff.objects:
            if entry.status != "modified" or entry.head is None or entry.base is None:
                continue
            old_pods = base_pods.get((entry.base.ref, entry.base.file), [])
            new_pods = head_pods.get((entry.head.ref, entry.head.file), [])
            if not old_pods or not new_pods:
                continue
            for violation in check(old_pods, new_pods):
                found = make_finding(rule, violation, settings.severity, head_model)
                out.append(replace(found, new=True))
    if out:
        suppressions = Suppressions(head_model)
        out = [f for f in out if not suppressions.matches(f)]
    return out


def _pods_by_ref(model: Model) -> dict[tuple[str, str], list[PodTemplate]]:
    """The pod templates of each object by (ref, file), in model order (values
    pseudo-objects are matched by ref and file, not by identity); ServingRuntime and
    LLMInferenceService templates too, whose images can move."""
    out: dict[tuple[str, str], list[PodTemplate]] = {}
    for pod in (*model.pods, *model.templates):
        out.setdefault((pod.obj.ref, pod.obj.file), []).append(pod)
    return out


# ---------------------------------------------------------------- diff


def mark_verdicts(entries: Sequence[dict[str, Any]],
                  verdicts: Sequence[Finding]) -> tuple[dict[str, Any], ...]:
    """Each diff entry with ``change_safety``: the verdicts on its object (severity, kind of
    change, message, fix, file, line). A verdict on an object no entry names (one its
    kustomization no longer lists) goes to the entry of the kustomization file nearest it."""
    by_ref: dict[str, list[dict[str, Any]]] = {}
    for f in sorted(verdicts, key=sort_key):
        entry = next((e for e in entries if e["object"] == f.object), None)
        if entry is None:
            folders = [e for e in entries if e["kind"] == "Kustomization" and e["file"]
                       and f.file.startswith(posixpath.dirname(e["file"]) + "/")]
            entry = max(folders, key=lambda e: len(e["file"]), default=None)
        if entry is None:
            continue
        by_ref.setdefault(entry["object"], []).append({
            "severity": f.severity, "kind": f.kind or None, "message": f.message,
            "fix": f.fix, "file": f.file, "line": f.line, "object": f.object, "path": f.path,
        })
    return tuple({**e, "change_safety": by_ref.get(e["object"], [])} for e in entries)



def _model(tree: Tree, config: Config, args: argparse.Namespace, loader: Any = None,
           memo: Memo | None = None) -> Model:
    return load_model(tree, config, loader, memo)


def diff_command(args: argparse.Namespace) -> int:
    if args.format not in _DIFF_FORMATS:
        raise ReviewbotError(f"diff writes {', '.join(_DIFF_FORMATS)}, not {args.format}")
    root = repo_root(Path(args.repo))
    paths = list(args.paths)
    if args.head and not _is_ref(root, args.head) and os.path.lexists(args.head):
        paths.insert(0, args.head)  # `diff BASE PATH`: the work tree, limited to PATH
        args.head = None
    prefixes = repo_prefixes(paths, root)
    base = _resolve(root, args.base, "base")
    head = _resolve(root, args.head, "head") if args.head else None
    sides = Sides(root, args.base, base, head)
    config = review_config(args, sides).config
    set_max_file_bytes(config.max_file_bytes)
    loader = file_loader(args, root)
    memo = Memo()
    base_model = _model(git_tree(root, base, prefixes), config, args, loader, memo)
    head_model = _model(head_tree(sides, prefixes), config, args, loader, memo)
    diff = _diff(base_model, head_model)
    entries = tuple(diff.as_json())
    verdicts: list[Finding] = []
    if args.format in ("json", "text"):
        verdicts = change_findings(diff, base_model, head_model, config, ("change-safety",))
    if args.format == "json":
        entries = mark_verdicts(entries, verdicts)
    if args.format == "text":
        text = render_diff_text(shown_entries(entries), use_color(args.color, args.output))
        text += _verdict_text(verdicts)
    elif args.format == "json":
        flows = review_changes(diff, base_model, head_model,
                               IngressController.from_config(config.section("netpol")))
        text = render(Report(findings=(), review=ReviewSummary(
            diff=entries, connectivity=tuple(flows or ())), skipped=tuple(head_model.skipped)),
            "json")
    else:
        from reviewbot.report.markdown import render_diff_section
        text = render_diff_section(shown_entries(entries), SUMMARY_LIMIT)
    emit(text, args.output)
    return EXIT_FINDINGS if getattr(args, "exit_code", False) and entries else EXIT_OK


def _verdict_text(verdicts: Sequence[Finding]) -> str:
    """The change-safety verdicts under the text diff, one line each (terminal-safe)."""
    if not verdicts:
        return ""
    lines = ["", "what applying this change does (change-safety):"]
    for f in sorted(verdicts, key=sort_key):
        lines.append(term(f"  {f.severity:<7} {f.file}:{f.line}  {f.message}"))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- review


@dataclass(frozen=True)
class ReviewOutcome:
    report: Report
    findings: tuple[Finding, ...]  # as reported (scope applied), new flag set
    new: tuple[Finding, ...]  # every new finding (what the exit code counts)
    config: Config
    sides: Sides | None = None  # the refs compared (for the preview's diff)
    event: CiEvent | None = None  # the CI event file, when it was read for the refs


def run_review(args: argparse.Namespace, env: Mapping[str, str]) -> ReviewOutcome:
    # The CI event is read once, here, and only when the refs need it; publishing takes it
    event = None if args.base and args.head else ci_event(env)
    sides = review_sides(args, event)
    try:
        prefixes = repo_prefixes(args.paths, sides.root)
    except ReviewbotError:  # reported after a configuration error, as the config comes first
        review_config(args, sides)
        raise
    # git reads both sides' blobs (in two processes) while this one reads the configuration
    # and the parse cache
    pending = PendingTree(sides.root, sides.base, prefixes, top=True)
    head_pending = (PendingTree(sides.root, sides.head, prefixes, top=True, skip=pending.shas)
                    if sides.head is not None else None)
    try:
        loader = file_loader(args, sides.root)
        cfg = review_config(args, sides, (pending, head_pending, not prefixes))
        guard_binaries(cfg.config, [sides.root])
        config = command_line_settings(base_schema_locations(cfg.config, sides), args)
    except BaseException:  # a refused cache or configuration: git need not read on
        pending.close()
        if head_pending is not None:
            head_pending.close()
        raise
    set_max_file_bytes(config.max_file_bytes)  # the base's limit; git blobs are read whole
    run = ReviewSummary(base=sides.base, base_ref=sides.base_ref, head=sides.head,
                        config=ConfigReview(cfg.source, cfg.changes, cfg.head_error))
    cache = loader if isinstance(loader, ParseCache) else None
    key = None
    if cache is not None and head_pending is not None:
        key = review_key((pending, head_pending), config,
                         [str(sides.root), list(args.rule or ()), args.scope,
                          args.config or "", prefixes])
        found = cache.review(key) if key is not None else None
        report = (thaw_report(found, run, lambda names: _texts(sides.root, head_pending, names))
                  if found is not None else None)
        if report is not None:
            pending.close()
            head_pending.close()
            new = tuple(f for f in report.findings if f.new)
            return ReviewOutcome(report, report.findings, new, config, sides, event)
    if cache is not None:
        cache.prefetch(pending.blobs)
    base_tree = pending.tree()
    head = head_tree(sides, prefixes, base_tree, head_pending)  # work-tree files: to the limit
    memo = Memo()  # base and head share nearly every file: each is parsed once
    base_model = load_model(base_tree, config, loader, memo)
    # The base's rules run in a worker while the head is loaded and checked, and the diff made
    base_rules = start_rules(base_tree, base_model, config, only=args.rule, loader=loader,
                             background=True)
    try:
        head_result = analyze(head, config, only=args.rule, loader=loader, memo=memo)
        diff = _diff(base_model, head_result.model)
    except Exception:
        base_rules()  # an error on the base side is reported first, as it always was
        raise
    base_result = base_rules()
    marked = mark_new(head_result.findings, base_result.findings, diff.renames)
    flows = review_changes(diff, base_model, head_result.model,
                           IngressController.from_config(config.section("netpol")))
    marked += change_findings(diff, base_result.model, head_result.model, config, args.rule)
    marked.sort(key=sort_key)
    marked = with_suggestions(head, config, head_result, marked, lambda f: bool(f.new), memo)
    gone = sorted(fixed(base_result.findings, marked, diff.renames), key=sort_key)
    touched = changed_files(base_tree, head)
    reported = select(marked, args.scope, diff.touched, touched)
    new = tuple(f for f in marked if f.new)
    summary = replace(
        run, diff=tuple(diff.as_json()), fixed=tuple(gone), connectivity=tuple(flows or ()),
        new=len(new), existing=len(marked) - len(new), scope=args.scope,
        max_chars=SUMMARY_LIMIT,
    )
    report = Report(
        findings=tuple(reported), skipped=tuple(head_result.skipped), review=summary,
        quiet=tuple(quiet_notes(head_result.model.notes)), stats=dict(head_result.stats),
        sources=_sources(head_result, reported),
    )
    if cache is not None and key is not None:
        frozen = freeze_report(report)
        if frozen is not None:
            cache.store_review(key, frozen)
    return ReviewOutcome(report, tuple(reported), new, config, sides, event)


def _texts(root: Path, head: PendingTree, names: Sequence[str]) -> dict[str, str] | None:
    """The texts of head files ``names`` as the loader decodes them; None if one is not
    listed."""
    shas = [head.sha_of(name) for name in names]
    if any(sha is None for sha in shas):
        return None
    blobs = read_blobs(root, [sha for sha in shas if sha is not None])
    out = {}
    for name, sha in zip(names, shas, strict=True):
        if sha not in blobs:
            return None
        out[name] = decode_text(blobs[sha])
    return out


def _sources(result: Result, findings: Sequence[Finding]) -> dict[str, str]:
    files = result.model.files
    return {f.file: files[f.file].text for f in findings if f.file in files}


def review_command(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    outcome = run_review(args, env)
    report = outcome.report
    fail_on = args.fail_on or outcome.config.fail_on or "error"
    code = exit_code(outcome.new, fail_on)
    color = use_color(args.color, args.output)
    text = render(report, args.format, color=color)
    if args.format == "text" and report.review is not None:
        text += "\n" + render_diff_text(shown_entries(report.review.diff), color)
        text += _config_note(report.review)
    emit(text, args.output)  # findings first: no forge call has happened yet
    if args.artifact:
        emit(render(report, args.artifact_format), args.artifact)
    publish(args, report, outcome.findings, env, outcome.sides, outcome.event)
    return code


def _config_note(review: ReviewSummary) -> str:
    """The PR's own configuration changes, for the text output (not applied)."""
    changes, error = review.config.changes, review.config.error
    if not changes and not error:
        return ""
    lines = ["", "configuration changed by this pull request (applies after merge; this review "
             "used the base branch's):"]
    if error:
        lines.append(f"  the new configuration does not load: {error}")
    for change in changes:
        old = json.dumps(change.get("old"), default=str) if "old" in change else ""
        new = json.dumps(change.get("new"), default=str) if "new" in change else ""
        lines.append(f"  {change.get('path')}: {change.get('op')} {old}"
                     f"{' -> ' if old and new else ''}{new}".rstrip())
    return "\n".join(term(line) for line in lines) + "\n"


# ---------------------------------------------------------------- publishing


def _scrub(text: str, env: Mapping[str, str]) -> str:
    for name in _TOKENS:
        secret = env.get(name)
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def inline_comments(findings: Sequence[Finding], platform: str = "github") -> tuple[Any, ...]:
    """One inline comment candidate per new finding, fingerprinted by its stable key. A
    finding whose fix is a replacement of lines sits on those lines and offers it (GitHub:
    a suggestion block; Forgejo, which has none: the replacement as a diff block)."""
    from reviewbot.forge.base import InlineComment
    from reviewbot.report.markdown import finding_comment, suggestion_block

    out = []
    for f in findings:
        if not f.new or not f.file or f.line < 1:
            continue
        body, line, start = finding_comment(f), f.line, None
        s = f.suggestion
        if s is not None:
            body += "\n\n" + suggestion_block(s, platform)
            line, start = s.end_line, (s.start_line if s.start_line < s.end_line else None)
        out.append(InlineComment(f.file, line, start, body, f.fingerprint))
    return tuple(out)


def publish(args: argparse.Namespace, report: Report, findings: Sequence[Finding],
            env: Mapping[str, str], sides: Sides | None = None,
            event: CiEvent | None = None) -> None:
    """Post the review, or show it (platform none, --dry-run). Never raises for the forge.
    The pull request comes from ``event`` when the review read it already.

    The preview is what would be posted, split the same way: inline comments on the lines
    of the local diff between base and head, the rest folded into the summary.
    """
    try:
        from reviewbot.forge.base import ReviewPayload
        from reviewbot.forge.ci import detect_platform, pr_from_event
        from reviewbot.forge.diffmap import parse_git_diff
        from reviewbot.forge.factory import make_forge
        from reviewbot.forge.preview import preview

        platform = args.platform if args.platform != "auto" else detect_platform(env)
        if args.comment_mode == "none":
            print("reviewbot: comment mode none: nothing posted", file=sys.stderr)
            return
        summary = render(report, "markdown")  # names shown as every format shows them
        comments = inline_comments(findings, platform)
        payload = ReviewPayload(summary, comments, args.comment_mode)
        if platform == "none" or args.dry_run:
            if args.platform == "none" or args.dry_run:
                diff = None
                if sides is not None:
                    try:
                        diff = parse_git_diff(diff_text(sides.root, sides.base, sides.head))
                    except ReviewbotError:
                        diff = None  # e.g. a shallow clone: everything folds, as on a forge
                _show(preview(payload, diff), args)
            else:
                print("reviewbot: not running in CI (no platform detected): nothing posted; "
                      "--dry-run shows the review", file=sys.stderr)
            return
        pr = pr_from_event(platform, env, event)
        result = make_forge(platform, env).publish(pr, payload)
        print(f"reviewbot: {term(_scrub(result.reason, env))}", file=sys.stderr)
    except ReviewbotError as exc:
        print(f"reviewbot: nothing posted: {term(_scrub(exc.message, env))}", file=sys.stderr)
    except Exception as exc:  # a forge bug must not lose the findings' exit code
        if getattr(args, "debug", False):
            raise
        print(f"reviewbot: nothing posted: internal error in publishing ({type(exc).__name__})",
              file=sys.stderr)


def _show(text: str, args: argparse.Namespace) -> None:
    stream = sys.stdout if args.output else sys.stderr
    stream.write("--- the review that would be posted ---\n" + text.rstrip() + "\n")
    stream.flush()
