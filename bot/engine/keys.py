"""Cache keys of a run's results: everything the findings of a lint (:func:`result_key`) or
the outcome of a review (:func:`review_key`) depend on, hashed; None when something they
depend on cannot be known (then nothing is cached)."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from reviewbot.config import Config
from reviewbot.load.cache import key_bytes
from reviewbot.sources.tree import PendingTree, Tree

RESULT_FORMAT = 7  # 7: the findings an ignore silenced


def result_key(tree: Tree, config: Config, only: Sequence[str]) -> str | None:
    """A digest of everything the findings of ``tree`` depend on, or None when some of it
    cannot be named (schema files read from outside the tree).

    The tree's files (path and blob id) and every path it holds (existence checks), the
    configuration, the rules asked for, the root (findings name files relative to it); the
    reviewbot version and cache format (the cache folder's name); the installed distributions
    (validator and schema versions); the kubeconform binary the schema rule would run.
    """
    digest = _digest(config, [RESULT_FORMAT, str(tree.root), list(only)])
    if digest is None:
        return None
    files = "".join(f"\n{record.path}\0{record.blob}" for record in tree.files + tree.texts)
    paths = "".join(f"\n{path}" for path in sorted(tree.paths))
    digest.update(key_bytes(f"{files}\n\0paths{paths}"))  # the bytes, hashed in one update
    return digest.hexdigest()


REVIEW_FORMAT = 4  # 3: every blob a generator may read; 4: the connectivity notes stored


def review_key(listings: Sequence[PendingTree], config: Config, parts: Sequence[Any]) -> str | None:
    """A digest of everything a review's outcome depends on, or None (as :func:`result_key`).

    ``listings``: the base and head trees as git lists them (every path, blob id and what was
    skipped: the blob ids name the contents); ``parts``: the review's own inputs (the
    repository root, the rules asked for, the scope, the configuration file named).
    """
    digest = _digest(config, [REVIEW_FORMAT, *parts])
    if digest is None:
        return None
    for listing in listings:  # the bytes of one update per entry, hashed in one update
        # every other blob too: the ones a generator reads are known only once read
        files = "".join(f"\n{path}\0{sha}" for path, sha in (
            *listing.entries, *listing.sides, *listing.jsons.items(), *listing.others.items()))
        paths = "".join(f"\n{path}" for path in sorted(listing.paths))
        skipped = "".join(f"\n{s.path}\0{s.reason}" for s in listing.skipped)
        digest.update(key_bytes(f"\n\0tree{files}\n\0paths{paths}\n\0skipped{skipped}"))
    return digest.hexdigest()


def _digest(config: Config, head: list[Any]) -> Any:
    """A SHA-1 of ``head``, the configuration and the environment, to add a tree to; None
    when the schemas come from files outside the tree (they cannot be named)."""
    schema = config.section("rules").get("schema") or {}
    if not isinstance(schema, dict) or schema.get("schema-locations"):
        return None
    import hashlib  # here: OpenSSL's start-up only for a run with a result cache

    digest = hashlib.sha1(usedforsecurity=False)
    digest.update(json.dumps([*head, config.raw, _environment(schema)], default=repr).encode())
    return digest


def _environment(schema: Mapping[str, Any]) -> list[Any]:
    """Where the validators and schemas come from and which versions are installed, and the
    kubeconform binaries the schema rule could run (path, size, modification time)."""
    import shutil  # a cached run only

    found: list[Any] = []
    for module in ("jsonschema_rs", "ruamel.yaml", "kubernetes_validate"):
        spec = importlib.util.find_spec(module)
        found.append(spec.origin if spec is not None else None)
    site = os.path.dirname(os.path.dirname(found[0])) if found[0] else ""
    try:
        found.append(sorted(n for n in os.listdir(site) if n.endswith(".dist-info")))
    except OSError:
        found.append(None)
    for name in ("kubeconform", str(schema.get("kubeconform") or "")):
        binary = shutil.which(name) if name else None
        try:
            stat = os.stat(binary) if binary else None
        except OSError:
            stat = None
        found.append([binary, stat.st_size, stat.st_mtime_ns] if stat else binary)
    return found
