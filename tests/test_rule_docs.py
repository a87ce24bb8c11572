"""Every rule module documents itself in the fixed sections, and every kind it reports; its
failing example fails and its passing example passes, run as they are written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewbot.commands.rules import explain
from reviewbot.engine.registry import REQUIRED_SECTIONS, Rule, all_rules, doc_sections

from .helpers import GitRepo, lint_dir, run_cli

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_the_docstring_has_the_fixed_sections(rule: Rule) -> None:
    sections = doc_sections(rule)
    assert [s for s in REQUIRED_SECTIONS if s not in sections] == []
    order = [s for s in sections if s]
    assert order == sorted(order, key=list(sections).index)
    for example in ("Failing example", "Passing example"):
        assert "```yaml" in sections[example], example


@pytest.mark.parametrize("rule", [r for r in RULES if r.severities], ids=lambda r: r.id)
def test_every_kind_is_documented_and_generated(rule: Rule) -> None:
    written = rule.doc
    for kind, severity in rule.severities.items():
        assert f"`{kind}`" in written, f"{rule.id}: kind {kind} is not documented"
        assert f"- `{kind}` ({severity} by default)" in doc_sections(rule)["Kinds"]


def test_explain_takes_a_check_as_a_finding_names_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    """New-user trial eighteen: `reviewbot explain egress-unmatched` exited 2; a finding's
    check, as JSON names it (`rule[kind]`) or alone, explains its rule after a line naming
    the check; a check several rules have, or one a rule lacks, is a usage error naming
    them."""
    code, out, _ = run_cli(["explain", "egress-unmatched"], capsys)
    # the check's own paragraphs, then where the whole rule is (new-user trial twenty-one
    # read 200 lines of netpol-pairing to find one check's paragraph)
    assert code == 0 and out.startswith(
        "netpol-pairing[egress-unmatched] (error by default), a check of rule "
        "netpol-pairing:\n\n- `egress-unmatched`")
    assert out.endswith("\n\n(reviewbot explain netpol-pairing explains the whole rule.)\n")
    assert "- `no-endpoints`" not in out and len(out.splitlines()) < 40
    code, same, _ = run_cli(["explain", "netpol-pairing[egress-unmatched]"], capsys)
    assert (code, same) == (0, out)
    code, _, err = run_cli(["explain", "missing"], capsys)
    assert code == 2 and "kustomize-integrity[missing]" in err
    code, _, err = run_cli(["explain", "image-digest[nope]"], capsys)
    assert code == 2 and "its checks: malformed, floating" in err


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_explain_shows_the_sections_in_order(rule: Rule) -> None:
    text = explain(rule)
    heads = [h for h in re.findall(r"^([A-Z][A-Za-z ]+)(?: \(.*\))?:$", text, flags=re.M)]
    assert heads[:2] == ["What it checks", "Why"]
    assert heads.index("When it stays quiet") < heads.index("Failing example")
    if rule.options:
        assert all(f"`{o.name}`" in text for o in rule.options)


# ---------------------------------------------------------------- the examples run
#
# Each fenced ```yaml block of an example is one file. Its first line may name it:
# ``# apps/kustomization.yaml`` (``.reviewbot.yaml``: the configuration); a rule that judges
# changes only names the side as well: ``# base: apps/pvc.yaml``, ``# head: apps/pvc.yaml``
# (a block without a side is in both). A block that names nothing is ``example.yaml``.
# The failing example gives at least one finding of its rule, the passing example none
# (every rule runs, as in a lint or a review: a suppression is judged against the others).

_BLOCK = re.compile(r"^```yaml\n(.*?)^```", re.M | re.S)
_NAME = re.compile(r"#\s*(?:(base|head):\s*)?([\w./-]+\.(?:ya?ml|json))\s*$")


def example_files(section: str) -> dict[str, dict[str, str]]:
    """side ("base", "head") -> path -> text, for the blocks of one example section."""
    sides: dict[str, dict[str, str]] = {"base": {}, "head": {}}
    for block in _BLOCK.findall(section):
        first = block.split("\n", 1)[0]
        named = _NAME.fullmatch(first.strip())
        side, path = (named.group(1), named.group(2)) if named else (None, "example.yaml")
        for name in ([side] if side else ["base", "head"]):
            assert path not in sides[name], f"two blocks name {path}"
            sides[name][path] = block
    return sides


def example_findings(rule: Rule, section: str, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str, int | None]]:
    """(rule, file, line) of what reviewbot finds in one example, by its rule."""
    files = example_files(section)
    if rule.check_set is not None or rule.check_change is None:  # a lint of its files
        for path, text in files["head"].items():
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_text(text)
        found = [(f.rule, f.file, f.line) for f in lint_dir(tmp_path).findings]
    else:  # a review of the change from the base's files to the head's
        repo = GitRepo(tmp_path / "repo")
        base = repo.commit(files["base"])
        head = repo.commit({**{p: None for p in files["base"] if p not in files["head"]},
                            **files["head"]})
        code, out, err = run_cli(["review", "--repo", str(repo.path), "--base", base, "--head",
                                  head, "--platform", "none", "--format", "json"], capsys)
        assert code in (0, 1), err
        found = [(f["rule"], f["file"], f["line"]) for f in json.loads(out)["findings"]]
    return [f for f in found if f[0] == rule.id]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_the_failing_example_fails(rule: Rule, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert example_findings(rule, doc_sections(rule)["Failing example"], tmp_path, capsys)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_the_passing_example_passes(rule: Rule, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert example_findings(rule, doc_sections(rule)["Passing example"], tmp_path, capsys) == []


def test_example_blocks_name_their_files_and_sides() -> None:
    files = example_files("```yaml\n# .reviewbot.yaml\nrules: {}\n```\n\n```yaml\n"
                          "# base: apps/a.yaml\na: 1\n```\n```yaml\nb: 2\n```\n")
    assert {side: sorted(paths) for side, paths in files.items()} == {
        "base": [".reviewbot.yaml", "apps/a.yaml", "example.yaml"],
        "head": [".reviewbot.yaml", "example.yaml"]}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_every_check_is_explained_by_more_than_its_name(rule: Rule) -> None:
    """New-user trial fifty: `reviewbot explain patch-dropped` printed "- `patch-dropped`
    (error by default)" alone; the rule tells it inside the idle-patch bullet."""
    from reviewbot.commands.rules import check_paragraphs

    for kind in rule.severities:
        said = "\n".join(check_paragraphs(rule, kind))
        assert len(said.split()) > 8, (rule.id, kind, said)
