"""The differential test (issue 27 §3): for every kustomization folder of every corpus
repository, the in-process build equals `kubectl kustomize` on whole normalized objects (the
same object set, the same bodies). Every folder that does not is listed in
tests/data/kustomize-oracle.tsv with the reason: kustomize's own (a remote base, Helm, a
plugin, a build kustomize refuses) or, marked `gap:`, what the in-process build does not do
yet. The test asserts the set reported equals the set listed, so a fix and a regression both
show.

Normalized: each object as JSON (YAML 1.1 scalars as kubectl's output reads back), keyed by
(apiVersion, kind, namespace, name); order of objects is not compared (kustomize's legacy
sort), order inside lists is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from reviewbot.load.loader import load
from reviewbot.model.transform import GENERATED_UNKNOWN, finish
from reviewbot.sources.tree import FileRecord, blob_id

from .helpers import kustomize_graph

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
LISTED = Path(__file__).parent / "data" / "kustomize-oracle.tsv"
KUBECTL = shutil.which("kubectl")

Key = tuple[str, str, str, str]


def _normal(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def _key(body: Any) -> Key:
    meta = body.get("metadata") if isinstance(body.get("metadata"), dict) else {}
    return (str(body.get("apiVersion")), str(body.get("kind")), str(meta.get("namespace") or ""),
            str(meta.get("name")))


def _kubectl(folder: Path) -> tuple[int, bytes, bytes]:
    assert KUBECTL is not None
    proc = subprocess.run([KUBECTL, "kustomize", str(folder)], capture_output=True,
                          check=False, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def verdicts(repo: Path) -> Iterator[tuple[str, str]]:
    """(folder, reason) for every kustomization folder of ``repo`` the in-process build
    does not make as kubectl kustomize does ("equal" ones are left out)."""
    graph = kustomize_graph(repo)
    folders = [f for f in sorted(graph.by_dir) if not graph.by_dir[f].is_component]
    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = dict(zip(folders, pool.map(lambda f: _kubectl(repo / f), folders),
                           strict=True))
    for folder in folders:
        build = graph.build(folder)
        code, out, err = outputs[folder]
        if build.remote:
            yield folder, "remote base: not fetched"
        elif build.helm:
            yield folder, "helmCharts: Helm is never run"
        elif code != 0:
            yield folder, "kustomize refuses: " + _gist(err)
        elif build.plugins:
            yield folder, "plugin: generators/transformers/validators are not run"
        else:
            record = FileRecord("built.yaml", blob_id(out), out)
            want = {_key(d.value): _normal(d.value) for d in load(record).documents
                    if isinstance(d.value, dict)}
            made = finish(build.resources, build.config, build.variables)
            got = {_key(r.body): _normal(r.body) for r in made}
            unknown = any(GENERATED_UNKNOWN in ((r.body.get("metadata") or {}).get(
                "annotations") or {}) for r in made)
            if (set(want) != set(got) or any(want[k] != got[k] for k in want)) and unknown:
                yield folder, "gap: a generator reads a file the tree does not parse"
            elif set(want) != set(got):
                yield folder, "gap: objects differ"
            elif any(want[k] != got[k] for k in want):
                yield folder, "gap: bodies differ"


def _gist(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace")
    if "must build at directory" in text or "security; file" in text:
        return "a resource outside the kustomization's root"
    if "no such file or directory" in text:
        return "a file it reads is not in the repository"
    if "evalsymlink failure" in text:
        return "a file it reads is not in the repository"
    if "already registered id" in text or "may not add resource with an already" in text:
        return "two objects with one id"
    if "loading KV pairs" in text and "://" in text:
        return "a generator source is a URL, which kustomize does not fetch"
    if "MalformedYAMLError" in text:
        return "a file it reads is not YAML kustomize reads (" + (
            "an unknown anchor" if "unknown anchor" in text else "malformed") + ")"
    if "kustomization.yaml is empty" in text:
        return "the kustomization is empty"
    return "other: " + text.strip().splitlines()[-1][-120:] if text.strip() else "other"


def listed() -> dict[tuple[str, str], str]:
    out = {}
    for line in LISTED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            repo, folder, reason = line.split("\t")
            out[(repo, folder)] = reason
    return out


REPOS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("repo", REPOS)
def test_every_corpus_kustomization_builds_as_kubectl_kustomize_builds(repo: str) -> None:
    if KUBECTL is None:
        assert not os.environ.get("CI"), "CI installs kubectl (.ci/run): it must be on PATH"
        pytest.skip("needs kubectl (Debian's kubectl package) on PATH")
    found = {(repo, folder): reason for folder, reason in verdicts(CORPUS / repo)}
    expected = {key: reason for key, reason in listed().items() if key[0] == repo}
    assert found == expected


@pytest.mark.skipif(not REPOS, reason=f"../shared/corpus is not at {CORPUS}")
def test_the_corpus_has_kustomizations_to_compare() -> None:
    # a clone without ../shared beside it skips, as every corpus test does
    assert any((CORPUS / r).rglob("kustomization.yaml") for r in REPOS)
