"""Fixtures for the forge tests: a fake clock, fake servers, a small pull request."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewbot.forge.base import InlineComment, PullRequestRef, ReviewPayload
from reviewbot.forge.retry import RetryPolicy

from .fake_forge import FakeClock, FakeFile, FakeForge

CODER_PATCH = "\n".join(
    [
        "@@ -10,6 +10,8 @@ spec:",
        "   containers:",
        "   - name: kserve-container",
        "     args:",
        "+    - --tensor-parallel-size=2",
        "+    - --max-model-len=262144",
        "     resources:",
        "       limits:",
        "         nvidia.com/gpu: 1",
        "@@ -40,3 +42,4 @@ spec:",
        "   volumes:",
        "-  - name: old",
        "+  - name: dshm",
        "+    emptyDir: {medium: Memory}",
        "   - name: cache",
        "\\ No newline at end of file",
    ]
)
HEAD = "c0ffee" + "0" * 34


def coder_files() -> list[FakeFile]:
    return [
        FakeFile("k8s/apps/llm-serving/coder.yaml", CODER_PATCH),
        FakeFile("k8s/apps/llm-serving/kustomization.yaml", "@@ -1,2 +1,3 @@\n a\n b\n+c"),
        FakeFile("k8s/old.yaml", None, status="removed"),
    ]


def comment(
    fp: str,
    line: int,
    *,
    path: str = "k8s/apps/llm-serving/coder.yaml",
    start: int | None = None,
    body: str | None = None,
) -> InlineComment:
    return InlineComment(path, line, start, body or f"**{fp}**: finding at line {line}", fp)


def payload(
    *comments: InlineComment, mode: str = "review", summary: str = "## reviewbot\n\nfindings"
) -> ReviewPayload:
    return ReviewPayload(summary, tuple(comments), mode)


PR = PullRequestRef("homelab", "gitops", 7, HEAD)
FAST = RetryPolicy(
    max_attempts=4, base_delay=1.0, max_delay=8.0, deadline=120.0, write_interval=1.0
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def github() -> Iterator[FakeForge]:
    with FakeForge("github") as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        yield forge


@pytest.fixture
def forgejo() -> Iterator[FakeForge]:
    with FakeForge("forgejo") as forge:
        forge.add_pull("homelab", "gitops", 7, files=coder_files(), head_sha=HEAD)
        yield forge
