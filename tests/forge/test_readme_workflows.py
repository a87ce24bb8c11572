"""The workflows docs/ci.md gives to copy: the permissions each needs, SARIF uploads that
fail loudly and cover the default branch, no `paths:` on a check that may be required,
credentials for the one fetch that needs them, and every `uses:` pinned."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

README = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def workflow(heading: str) -> dict[str, Any]:
    """The first ```yaml block under the docs/ci.md heading ``heading``."""
    text = README.read_text(encoding="utf-8")
    start = re.search(rf"\n##+ {re.escape(heading)}\n", text).start()  # type: ignore[union-attr]
    block = re.search(r"```yaml\n(.*?)```", text[start:], re.S)
    assert block is not None, heading
    data: dict[str, Any] = YAML(typ="safe").load(block.group(1))
    return data


SAME_REPO = "GitHub: pull requests from the same repository, with SARIF upload"
PUBLISHER = "GitHub: fork pull requests, the safe `workflow_run` pattern"
FORGEJO = "Forgejo and Gitea Actions"
FORGEJO_FORKS = "Fork pull requests on Forgejo: `pull_request_target`"


def steps(flow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in flow["jobs"].values() for step in job["steps"]]


def test_same_repository_workflow_permissions() -> None:
    flow = workflow(SAME_REPO)
    assert flow["permissions"] == {
        "contents": "read", "pull-requests": "write", "security-events": "write",
        "actions": "read",  # SARIF upload on private repositories
    }  # fmt: skip


def test_sarif_upload_fails_loudly_covers_main_and_is_attributed_to_the_head() -> None:
    flow = workflow(SAME_REPO)
    (upload,) = [s for s in steps(flow) if "upload-sarif" in str(s.get("uses", ""))]
    assert "continue-on-error" not in upload
    assert "head.repo.full_name == github.repository" in upload["if"]  # forks: skipped
    assert upload["with"]["category"] == "reviewbot"
    assert "refs/pull/{0}/head" in upload["with"]["ref"]
    assert "pull_request.head.sha" in upload["with"]["sha"]
    assert flow["on"]["push"]["branches"] == ["main"]  # the baseline code scanning needs


@pytest.mark.parametrize("heading", [SAME_REPO, FORGEJO])
def test_no_paths_filter_on_a_check_that_may_be_required(heading: str) -> None:
    trigger = workflow(heading)["on"]["pull_request"] or {}
    assert "paths" not in trigger and "paths-ignore" not in trigger


def test_publisher_fetches_the_pr_head_with_credentials() -> None:
    flow = workflow(PUBLISHER)
    assert flow["permissions"] == {
        "contents": "read", "pull-requests": "write", "actions": "read",
    }  # fmt: skip
    (fetch,) = [s for s in steps(flow) if "fetch --no-tags" in str(s.get("run", ""))]
    assert "extraheader" in fetch["run"] and fetch["env"]["GH_TOKEN"] == "${{ github.token }}"
    checkout = next(s for s in steps(flow) if "actions/checkout" in str(s.get("uses", "")))
    assert checkout["with"]["persist-credentials"] is False


@pytest.mark.parametrize("heading", [SAME_REPO, PUBLISHER, FORGEJO, FORGEJO_FORKS])
def test_scripts_take_values_from_env_and_actions_are_pinned(heading: str) -> None:
    for step in steps(workflow(heading)):
        assert "${{" not in str(step.get("run", ""))
        uses = str(step.get("uses", ""))
        if uses:
            assert re.search(r"@[0-9a-f]{40}$", uses), uses


def test_forgejo_workflow_runs_on_a_debian_image_with_python() -> None:
    (job,) = workflow(FORGEJO)["jobs"].values()
    assert job["container"]["image"] == "node:20-bookworm"  # python3 3.11: see test_action
    text = README.read_text(encoding="utf-8")
    section = text[text.index(f"## {FORGEJO}") :]
    for scope in ("write:repository", "write:issue", "read:user"):
        assert f"`{scope}`" in section


def test_forgejo_fork_prs_review_the_base_checkout_with_a_writing_token() -> None:
    """pull_request_target runs the base branch's workflow with secrets and a token that can
    write: the job checks out the base commit, fetches the head as data, and falls back to
    the automatic token when REVIEWBOT_TOKEN is not set."""
    flow = workflow(FORGEJO_FORKS)
    assert list(flow["on"]) == ["pull_request_target"]
    checkout, fetch, review = steps(flow)
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.base.sha }}"
    assert checkout["with"]["persist-credentials"] is False
    assert "refs/pull/$NUMBER/head" in fetch["run"] and "--render" not in str(flow)
    assert fetch["env"]["TOKEN"] == "${{ secrets.REVIEWBOT_TOKEN || github.token }}"
    assert review["with"]["base"] == "${{ github.event.pull_request.base.sha }}"
    assert review["with"]["head"] == "${{ github.event.pull_request.head.sha }}"
