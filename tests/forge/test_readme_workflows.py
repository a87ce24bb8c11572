"""The workflows the README gives to copy: the permissions each needs, SARIF uploads that
fail loudly and cover the default branch, no `paths:` on a check that may be required,
credentials for the one fetch that needs them, and every `uses:` pinned."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

README = Path(__file__).resolve().parents[2] / "README.md"


def workflow(heading: str) -> dict[str, Any]:
    """The first ```yaml block under the README heading ``heading``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n### {heading}")
    block = re.search(r"```yaml\n(.*?)```", text[start:], re.S)
    assert block is not None, heading
    data: dict[str, Any] = YAML(typ="safe").load(block.group(1))
    return data


SAME_REPO = "GitHub: pull requests from the same repository, with SARIF upload"
PUBLISHER = "GitHub: fork pull requests, the safe `workflow_run` pattern"
FORGEJO = "Forgejo and Gitea Actions"


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


@pytest.mark.parametrize("heading", [SAME_REPO, PUBLISHER, FORGEJO])
def test_scripts_take_values_from_env_and_actions_are_pinned(heading: str) -> None:
    for step in steps(workflow(heading)):
        assert "${{" not in str(step.get("run", ""))
        uses = str(step.get("uses", ""))
        if uses and "OWNER/reviewbot" not in uses:
            assert re.search(r"@[0-9a-f]{40}$", uses), uses


def test_forgejo_workflow_runs_on_a_debian_image_with_python() -> None:
    (job,) = workflow(FORGEJO)["jobs"].values()
    assert job["container"]["image"] == "node:20-bookworm"  # python3 3.11: see test_action
    text = README.read_text(encoding="utf-8")
    section = text[text.index(f"### {FORGEJO}") :]
    for scope in ("write:repository", "write:issue", "read:user"):
        assert f"`{scope}`" in section
