"""The two sides of a change in git: which commits a review or diff compares, what part of
the tree, and the probes that read single files of either side.

The base side is the merge base of the base ref and the head (what the pull request forked
from); the head is a commit, or None for the work tree. Every git failure is a
:class:`~reviewbot.errors.ReviewbotError` that says what to do (fetch the full history, name
the repository).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from reviewbot.errors import ReviewbotError
from reviewbot.sources.event import CiEvent, event_refs
from reviewbot.sources.tree import (
    MAX_FILE_BYTES,
    PendingTree,
    Tree,
    git_tree,
    merge_base,
    read_blobs,
    repo_root,
    resolve_ref,
    work_tree,
)


@dataclass(frozen=True)
class Sides:
    """What a change compares: two commits of the repository at ``root``, and the part of the
    tree (``prefixes``, repository-relative folders or files; empty: all of it)."""

    root: Path
    base_ref: str  # as given (for display)
    base: str  # the merge base sha
    head: str | None  # head sha, None for the work tree
    prefixes: tuple[str, ...] = ()


def safe_ref(ref: str, what: str) -> str:
    """``ref`` when git can take it as a revision (never an option), else an error."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\0\n\r"):
        raise ReviewbotError(f"invalid {what} ref {ref[:80]!r}")
    return ref


def resolve(root: Path, ref: str, what: str) -> str:
    """The commit ``ref`` names (``what``: base or head, for the error)."""
    try:
        return resolve_ref(root, safe_ref(ref, what), top=True)
    except ReviewbotError as exc:
        if not in_git(root):
            raise ReviewbotError(
                f"{root} is not in a git repository: diff and review compare git refs "
                "(--repo DIR names the repository)") from None
        raise ReviewbotError(
            f"cannot resolve the {what} {ref[:80]!r}: {exc.message} (in CI, fetch the full "
            "history: actions/checkout with fetch-depth: 0)"
        ) from None


def find_sides(repo: Path, base_ref: str | None, head_ref: str | None,
               event: CiEvent | None) -> Sides:
    """The refs to compare: ``base_ref``/``head_ref`` as given, else the CI ``event``'s."""
    root = repo_root(repo)
    event_base, event_head = (None, None) if base_ref and head_ref else event_refs(event)
    base_ref = base_ref or event_base
    head_ref = head_ref or event_head
    if not base_ref:
        raise ReviewbotError(
            "no base to compare with: pass --base REF, or run on a pull_request event "
            "(GITHUB_EVENT_PATH / FORGEJO_EVENT_PATH)"
        )
    base_sha = resolve(root, base_ref, "base")
    head_sha = resolve(root, head_ref, "head") if head_ref else None
    try:
        merge = merge_base(root, base_sha, head_sha or resolve(root, "HEAD", "head"), top=True)
    except ReviewbotError as exc:
        hint = ("a shallow clone? fetch with fetch-depth: 0" if shallow(root)
                else "the two have no common history (unrelated histories)")
        raise ReviewbotError(
            f"no merge base of {base_ref[:80]} and {head_ref or 'HEAD'}: {exc.message} "
            f"({hint})"
        ) from None
    return Sides(root, base_ref, merge, head_sha)


def in_git(root: Path) -> bool:
    return subprocess.run(["git", "-C", str(root), "rev-parse", "--git-dir"],
                          capture_output=True, check=False).returncode == 0


def shallow(root: Path) -> bool:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-shallow-repository"],
                         capture_output=True, text=True, check=False)
    return out.stdout.strip() != "false"


def is_ref(root: Path, ref: str) -> bool:
    try:
        resolve(root, ref, "head")
    except ReviewbotError:
        return False
    return True


def in_repo(path: Path, root: Path) -> str | None:
    """``path`` relative to the repository ``root`` (``/`` separators), None outside it."""
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return None


def repo_prefixes(paths: Sequence[str], root: Path) -> tuple[str, ...]:
    """PATH arguments (relative to the current directory) as repository-relative prefixes."""
    out = []
    for raw in paths:
        rel = in_repo(Path(raw), root)
        if rel is None:
            raise ReviewbotError(f"{raw} is outside the repository {root}")
        if rel in ("", "."):
            return ()
        out.append(rel)
    return tuple(out)


def head_tree(sides: Sides, base: Tree | None = None, pending: PendingTree | None = None,
              max_file_bytes: int = MAX_FILE_BYTES) -> Tree:
    """The head side; blobs the ``base`` tree already read are not read again (``pending``:
    the head's listing, started with the base's blob ids skipped). Work-tree files are read
    up to ``max_file_bytes`` (git blobs are read whole, the loader applies the limit; the
    files a generator names are read up to it)."""
    if sides.head is None:
        return work_tree(sides.root, sides.prefixes, max_file_bytes)
    known = ({f.blob: f.data for f in (*base.files, *base.texts)} if base is not None
             else None)
    if pending is not None:
        return pending.tree(known, max_file_bytes)
    return git_tree(sides.root, sides.head, sides.prefixes, top=True, known=known,
                    max_file_bytes=max_file_bytes)


def file_at(root: Path, ref: str | None, rel: str, tree: Tree | PendingTree | None = None,
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
    elif isinstance(tree, Tree) and ref is not None:
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


def json_files_at(root: Path, ref: str, prefix: str) -> dict[str, bytes]:
    """The ``.json`` files (regular, not links) under ``prefix`` at ``ref``, by path."""
    listing = subprocess.run(
        ["git", "-C", str(root), "ls-tree", "-r", "-z", "--full-tree", ref, "--",
         *([prefix] if prefix else [])], capture_output=True, check=False).stdout
    wanted: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        fields = meta.decode(errors="replace").split()
        if len(fields) == 3 and fields[0] in ("100644", "100755") and name.endswith(b".json"):
            wanted.append((name.decode("utf-8", "surrogateescape"), fields[2]))
    blobs = read_blobs(root, [sha for _, sha in wanted])
    return {path: blobs.get(sha, b"") for path, sha in wanted}


def listed_blobs(root: Path, head: PendingTree, names: Sequence[str]) -> dict[str, bytes] | None:
    """The blobs of ``names`` as ``head`` lists them; None if one is not listed or read."""
    shas = [head.sha_of(name) for name in names]
    if any(sha is None for sha in shas):
        return None
    blobs = read_blobs(root, [sha for sha in shas if sha is not None])
    out = {}
    for name, sha in zip(names, shas, strict=True):
        if sha is None or sha not in blobs:
            return None
        out[name] = blobs[sha]
    return out


def changed_files(base: Tree, head: Tree) -> frozenset[str]:
    """The files of ``head`` whose content the ``base`` does not hold at the same path."""
    before = {f.path: f.blob for f in base.files}
    return frozenset(f.path for f in head.files if before.get(f.path) != f.blob)
