"""One parametrised test walks tests/fixtures/<rule>/{pass,fail}/ (yamllint style).

A case is one YAML file or one folder (a small repository, with its own .reviewbot.yaml when
it needs an inventory). In `fail` cases, `# expect: <rule>` comments mark every line where
that rule must report, and no other line may get a finding of it; `# expect: <rule>[<kind>]`
also names the check (its kind), whose default severity the finding must have; `pass` cases
give none.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from reviewbot.config import Config, find_config, load_config_file
from reviewbot.engine.options import check_options
from reviewbot.engine.registry import all_rules

from .helpers import GitRepo, expected_marks, expected_pairs, kinds_hold, lint_dir, run_cli

FIXTURES = Path(__file__).parent / "fixtures"
RULE_IDS = sorted(r.id for r in all_rules())


def _cases() -> list[tuple[str, str, Path]]:
    cases = []
    for rule in RULE_IDS:
        for outcome in ("pass", "fail"):
            folder = FIXTURES / rule / outcome
            if folder.is_dir():
                cases += [(rule, outcome, p) for p in sorted(folder.iterdir())
                          if p.is_dir() or p.suffix in (".yaml", ".yml")]
    return cases


@pytest.mark.parametrize(
    ("rule", "outcome", "case"), _cases(), ids=lambda v: v.name if isinstance(v, Path) else v
)
def test_fixture(rule: str, outcome: str, case: Path, tmp_path: Path,
                 capsys: pytest.CaptureFixture[str]) -> None:
    if (case / "base").is_dir() and (case / "head").is_dir():
        _change_case(rule, outcome, case, tmp_path, capsys)
        return
    # unused-suppression judges the suppressions of every other rule, so all rules run.
    result = lint_dir(case, only=[] if rule == "unused-suppression" else [rule])
    root = case if case.is_dir() else case.parent
    base = Path(result.model.root)
    got = sorted(
        ((base / f.file).resolve().relative_to(root.resolve()).as_posix(), f.line)
        for f in result.findings if f.rule == rule
    )
    if outcome == "pass":
        assert got == [], [f.message for f in result.findings]
    else:
        want = expected_pairs(case, rule)
        assert want, f"{case} marks no `# expect: {rule}` line"
        assert got == want, [(f.line, f.message) for f in result.findings]
        marks = expected_marks(case, rule)
        assert kinds_hold(result.findings, root, base, marks, _config(case)) == []


def _config(case: Path) -> Config:
    root = case if case.is_dir() else case.parent
    found = find_config(root, root)
    return check_options(load_config_file(found)) if found else Config()


def _change_case(rule: str, outcome: str, case: Path, tmp_path: Path,
                 capsys: pytest.CaptureFixture[str]) -> None:
    """A case with ``base/`` and ``head/`` is a pull request: both are committed to a git
    repository and reviewed. `# expect:` marks lines of the head (of the base for findings
    on objects the head no longer has)."""
    repo = GitRepo(tmp_path / "repo")
    base = repo.commit_tree(case / "base", "base")
    head = repo.commit_tree(case / "head", "head")
    code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                              "--platform", "none", "--format", "json", "--rule", rule], capsys)
    assert code in (0, 1), err
    findings = json.loads(out)["findings"]
    got = sorted((f["file"], f["line"]) for f in findings if f["rule"] == rule)
    if outcome == "pass":
        assert got == [], [f["message"] for f in findings]
    else:
        want = sorted(expected_pairs(case / "head", rule) + expected_pairs(case / "base", rule))
        assert want, f"{case} marks no `# expect: {rule}` line"
        assert got == want, [(f["line"], f["message"]) for f in findings]


# Rules whose messages do not open with their object (yet), and why.
NOT_WHO_FIRST = {
    # file-level: the file opens every output line already, and a file-level finding's
    # identity hashes its message, so a file prefix would change every such fingerprint
    "yaml-syntax": "file-level findings: the location is the who",
    # "ignore annotation ..." / "ignore comment ...": the suppression names itself first
    "unused-suppression": "the suppression (annotation or comment) is the who",
}


def who_first(message: str, obj: str, file: str, path: str, pods: Sequence[str] = ()) -> bool:
    """The message opens with who: its object (``Kind/ns/name``, ``Kind ns/name``, ``ns/name``,
    the name or a pod named from it, one of ``pods``, the names of the object's pods: a values
    file's are its release's, or another workload of its namespace as ``ns/name``), the
    field the finding points at (a parent of it, or an item of the field a file-level
    finding is identified by: ``resources[1]`` of ``resources``), or its file."""
    heads = [file, posixpath.basename(file)] if file else []
    heads += list(pods)
    if obj:
        kind, *rest = obj.split("/")
        name, ns = rest[-1], (rest[0] if len(rest) == 2 else None)
        heads += [f"{kind} {ns}/{name}" if ns else f"{kind} {name}", name]
        if ns:
            heads.append(f"{ns}/")
        if re.match(rf"{re.escape(kind)}/([^/\s]+/)?{re.escape(name)}\b", message):
            return True
    # a file-level finding's path is "file:field:value"
    field = path.split(":")[1] if not obj and path.count(":") >= 1 else path
    head = re.match(r"[^\s:]*", message).group(0)  # type: ignore[union-attr]
    # the field, a parent of it, or (a file-level finding identified by its field) its item
    if head and (field == head or field.startswith((head + ".", head + "["))
                 or head.startswith(field + "[")):
        return True
    return any(h and message.startswith(h) for h in heads)


def test_every_message_names_who_first(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """One message shape: who (object, container) first, then the fact, then the
    consequence, for every finding of every failing fixture."""
    wrong = []
    for rule, outcome, case in _cases():
        if outcome != "fail" or rule in NOT_WHO_FIRST:
            continue
        for obj, file, path, message, pods in _fail_findings(rule, case, tmp_path / case.name,
                                                             capsys):
            if not who_first(message, obj, file, path, pods):
                wrong.append(f"{rule} {case.name}: {obj or file}: {message[:80]}")
    assert wrong == []


def _fail_findings(rule: str, case: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                   ) -> list[tuple[str, str, str, str, tuple[str, ...]]]:
    """(object, file, field path, message, the object's pods' names) of the rule's findings
    in a failing case."""
    if (case / "base").is_dir() and (case / "head").is_dir():
        repo = GitRepo(tmp_path / "repo")
        base = repo.commit_tree(case / "base", "base")
        head = repo.commit_tree(case / "head", "head")
        _, out, _ = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head", head,
                             "--platform", "none", "--format", "json", "--rule", rule], capsys)
        return [(f["object"], f["file"], "", f["message"], ())
                for f in json.loads(out)["findings"] if f["rule"] == rule]
    result = lint_dir(case, only=[rule])
    pods: dict[str, list[str]] = {}
    for pod in result.model.pods:
        pods.setdefault(pod.obj.ref, []).append(pod.name)
    return [(f.object, f.file, f.path, f.message, tuple(pods.get(f.object, ())))
            for f in result.findings if f.rule == rule]


def test_the_who_first_check_can_fail() -> None:
    assert who_first("coder-predictor, container c: image x is pinned by tag only",
                     "InferenceService/llm-serving/coder", "k8s/coder.yaml", "spec")
    assert who_first("spec.replicas: expected integer", "Deployment/default/web", "a.yaml",
                     "spec.replicas")
    assert not who_first("pods pinned to worker-1 request 36 cpu", "Deployment/default/batch",
                         "a.yaml", "spec.template.spec.containers[0].resources")
    assert who_first("resources[1]: 'a.yaml' does not exist", "", "app/kustomization.yaml",
                     "app/kustomization.yaml:resources:a.yaml")
    assert not who_first("a.yaml does not exist", "", "app/kustomization.yaml",
                         "app/kustomization.yaml:resources:a.yaml")
    assert not who_first("Kubernetes 1.37 serves no DaemonSet in extensions/v1beta1",
                         "DaemonSet/default/agent", "a.yaml", "apiVersion")


def test_every_rule_has_docs_and_fixtures() -> None:
    """The meta test: a rule without documentation or fixtures fails here."""
    missing = []
    for rule in all_rules():
        if not rule.fix.endswith("."):
            missing.append(f"{rule.id}: fix must end with a period")
        if "Failing example" not in rule.doc or "Passing example" not in rule.doc:
            missing.append(f"{rule.id}: docstring needs a failing and a passing example")
        if rule.doc.count("```yaml") < 2:
            missing.append(f"{rule.id}: examples must be ```yaml blocks")
        for outcome in ("pass", "fail"):
            folder = FIXTURES / rule.id / outcome
            if not folder.is_dir() or not any(folder.iterdir()):
                missing.append(f"{rule.id}: no tests/fixtures/{rule.id}/{outcome}/ cases")
        checks = rule.check_set or rule.check_change
        if not checks and rule.id != "unused-suppression":
            missing.append(f"{rule.id}: neither check_set nor check_change")
        for option in rule.options:
            if not option.help:
                missing.append(f"{rule.id}: option {option.name} has no help")
    assert not missing, "\n".join(missing)


def test_a_kind_mark_fails_when_the_severity_regresses(tmp_path: Path) -> None:
    from dataclasses import replace

    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
        "  - name: c\n    image: nginx:latest  # expect: image-digest[floating]\n")
    result = lint_dir(tmp_path, only=["image-digest"])
    marks = expected_marks(tmp_path, "image-digest")
    base = Path(result.model.root)
    assert kinds_hold(result.findings, tmp_path, base, marks, Config()) == []
    demoted = [replace(f, severity="warning") for f in result.findings]
    assert kinds_hold(demoted, tmp_path, base, marks, Config()) == [
        "pod.yaml:7: floating is warning, not error"]
    renamed = [replace(f, kind="unpinned") for f in result.findings]
    assert kinds_hold(renamed, tmp_path, base, marks, Config()) == [
        "pod.yaml:7: no finding of kind floating"]
