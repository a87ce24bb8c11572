"""The command line as a new user meets it: help, version, exit codes."""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewbot import __version__
from reviewbot.cli import main

from .helpers import ROOT, GitRepo


def test_no_arguments_print_the_help_as_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: reviewbot") and "lint" in out and "review" in out


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([flag]) == 0
    assert capsys.readouterr().out.strip() == f"reviewbot {__version__}"


def test_one_version_for_the_package_and_the_command() -> None:
    assert importlib.metadata.version("gitops-reviewbot") == __version__


# ---------------------------------------------------------------- linting nothing is no pass


@pytest.mark.parametrize("layout", ["empty", "no-yaml", "readme"])
def test_linting_no_manifest_is_a_usage_error(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path
    if layout != "empty":
        (tmp_path / "README.md").write_text("# notes\n")
        (tmp_path / "run.sh").write_text("echo hi\n")
    if layout == "readme":
        target = tmp_path / "README.md"
    assert main(["lint", str(target)]) == 2
    assert "no Kubernetes manifests found in" in capsys.readouterr().err
    assert main(["lint", str(target), "--allow-empty"]) == 0


def test_several_paths_find_the_config_of_their_common_folder(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["lint", "examples/k8s/apps", "examples/k8s/bootstrap", "--format", "json"]) == 1
    err = capsys.readouterr().err
    assert "configuration from examples/.reviewbot.yaml" in err


def test_paths_that_repeat_or_hold_one_another_are_read_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lint . .` and `lint . apps` are `lint .` (a new-user trial: every finding twice, the
    second copies without their kustomize namespace, and 39 objects for 19)."""
    monkeypatch.chdir(ROOT / "examples")

    def lint(*paths: str) -> tuple[list[Any], Any]:
        main(["lint", *paths, "--format", "json"])
        out = json.loads(capsys.readouterr().out)
        return out["findings"], out["skipped"]

    once = lint(".")
    assert lint(".", ".") == once
    assert lint(".", "k8s/apps", "./k8s") == once


def test_only_files_lints_the_whole_tree_and_reports_the_named_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write({
        "k/kustomization.yaml": "resources: [a.yaml, gone.yaml]\n",
        "k/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        # applied as written (what k builds is not applied while gone.yaml is missing)
        "b/b.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\n"
                    "spec: {containers: [{name: c, image: nginx}]}\n",
    })
    monkeypatch.chdir(repo.path)
    # the staged kustomization alone still knows gone.yaml is missing (whole-tree view) ...
    repo.git("add", "k/kustomization.yaml")
    assert main(["lint", ".", "--only-files", "--format", "json"]) == 1
    files = {f["file"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert files == {"k/kustomization.yaml"}
    # ... and a named file's findings are the only ones reported
    assert main(["lint", ".", "--only-files", "b/b.yaml", "--format", "json"]) == 1
    files = {f["file"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert files == {"b/b.yaml"}
    assert main(["lint", ".", "--only-files", "k/a.yaml", "--format", "json"]) == 0
    capsys.readouterr()
    # a folder names its files, with the whole tree as their context (new-user trial
    # eighty-seven W4: an app's folder linted alone missed the roots that apply it)
    for folder, found in (("k", {"k/kustomization.yaml"}), ("b/", {"b/b.yaml"}),
                          (".", {"k/kustomization.yaml", "b/b.yaml"}), ("kk", set())):
        main(["lint", ".", "--only-files", folder, "--format", "json"])
        captured = capsys.readouterr()
        assert {f["file"] for f in json.loads(captured.out)["findings"]} == found, folder
        # a filter naming nothing of the repository is said, no clean pass in silence
        # (new-user trial ninety D1)
        assert ("--only-files kk: no file or folder of the repository" in captured.err) == (
            folder == "kk"), folder


def test_the_pre_commit_hook_is_whole_tree_and_pinned() -> None:
    import tomllib

    from reviewbot.load.loader import load
    from reviewbot.sources.tree import FileRecord

    data = (ROOT / ".pre-commit-hooks.yaml").read_bytes()
    (hook,) = load(FileRecord(".pre-commit-hooks.yaml", "", data)).documents[0].value
    assert hook["pass_filenames"] is False and hook["entry"].endswith("--only-files")
    def norm(name: str) -> str:  # PEP 503
        return re.sub(r"[-_.]+", "-", name).lower()

    pins = {norm(n): v for n, v in (line.strip().split("==") for line in (
        ROOT / "constraints.txt").read_text().splitlines() if "==" in line
        and not line.startswith("#"))}
    hooked = {norm(n): v for n, v in (d.split("==") for d in hook["additional_dependencies"])}
    assert all(pins.get(name) == version for name, version in hooked.items())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for requirement in project["dependencies"]:
        name = norm(re.split(r"[<>=!~ ]", requirement, maxsplit=1)[0])
        assert hooked.get(name) == pins[name], name


def test_the_file_size_limit_is_an_option_the_finding_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + "".join(
        f"  k{i}: '{'x' * 90}'\n" for i in range(50_000))  # about 5 MiB
    (tmp_path / "big.yaml").write_text(big)
    assert main(["lint", str(tmp_path), "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["rule"] == "yaml-syntax" and "loader.max-file-bytes" in finding["message"]
    (tmp_path / ".reviewbot.yaml").write_text("loader: {max-file-bytes: 8388608}\n")
    assert main(["lint", str(tmp_path), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    (tmp_path / ".reviewbot.yaml").unlink()  # the limit was that run's: this one has the default
    assert main(["lint", str(tmp_path), "--format", "json"]) == 1


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--format", "xml"]) == 2
    assert main(["lint", "/definitely/not/here"]) == 2


def test_an_unknown_rule_is_a_usage_error_naming_the_known_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", str(ROOT / "examples"), "--rule", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown rule(s): nope; known rules: api-lifecycle, " in err and "yaml-syntax" in err


def test_a_measured_entry_that_names_no_workload_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial nine: `measured: {HelmRelease/llm/vlm: ...}` (a letter short) silently
    turned probe-headroom off for vllm. A lint of the whole tree says which entry names no
    workload and what it may mean; a lint of part of it cannot tell, and says nothing."""
    (tmp_path / ".reviewbot.yaml").write_text(
        "measured:\n  Deployment/llm/vlm: {measured-boot-seconds: 420}\n")
    (tmp_path / "d.yaml").write_text(textwrap.dedent("""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: vllm, namespace: llm}
        spec:
          selector: {matchLabels: {app: v}}
          template:
            metadata: {labels: {app: v}}
            spec:
              containers: [{name: v, image: "v:1"}]
    """))
    monkeypatch.chdir(tmp_path)
    main(["lint", ".", "--rule", "probe-headroom"])
    assert capsys.readouterr().err == (
        "reviewbot: .reviewbot.yaml: measured entry Deployment/llm/vlm names no workload of "
        "this tree (did you mean Deployment/llm/vllm?): its facts reach nothing\n")
    main(["lint", "d.yaml", "--rule", "probe-headroom"])
    assert capsys.readouterr().err == ""
    # in the tree, not applied: said so (new-user trial eighty W8, an Application's path typo)
    (tmp_path / ".reviewbot.yaml").write_text(
        "measured:\n  Deployment/llm/vllm: {measured-boot-seconds: 420}\n")
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "kustomization.yaml").write_text("resources: [cm.yaml]\n")
    (tmp_path / "apps" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n"
                                               "metadata: {name: c, namespace: llm}\n")
    (tmp_path / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a, "
        "namespace: argocd}\nspec:\n  project: default\n  source: {repoURL: "
        "https://github.com/acme/x.git, path: apps}\n  destination: {name: in-cluster}\n")
    main(["lint", ".", "--rule", "probe-headroom"])
    assert capsys.readouterr().err == (
        "reviewbot: .reviewbot.yaml: measured entry Deployment/llm/vllm names a workload of "
        "d.yaml, which no cluster root applies: its facts reach nothing\n")


def test_fail_on_threshold(tmp_path: Path) -> None:
    # a manifest kustomize refuses (a key written twice): an error
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\na: 1\na: 2\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [a.yaml]\n")
    args = ["lint", str(tmp_path), "--format", "json", "--output", str(tmp_path / "o.json")]
    assert main(args) == 1
    assert main([*args, "--fail-on", "none"]) == 0
    (tmp_path / ".reviewbot.yaml").write_text("rules:\n  yaml-syntax: {severity: warning}\n")
    assert main(args) == 0
    assert main([*args, "--fail-on", "warning"]) == 1


def test_a_path_that_does_not_exist_is_the_one_error_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    assert main(["lint", str(missing)]) == 2
    assert capsys.readouterr().err == f"reviewbot: no such file or directory: {missing}\n"


def test_diff_outside_git_says_so_and_names_no_ci_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert main(["diff", "main"]) == 2
    err = capsys.readouterr().err
    assert "is not in a git repository" in err and "fetch-depth" not in err


@pytest.mark.parametrize("command", [
    ["diff", "{base}", "HEAD"],
    ["review", "--base", "{base}", "--head", "HEAD", "--platform", "none"],
])
def test_a_head_with_no_commit_beyond_the_base_is_said(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = GitRepo(tmp_path / "repo")
    sha = repo.commit({"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})
    monkeypatch.chdir(repo.path)
    assert main([word.format(base="main") for word in command]) == 0
    captured = capsys.readouterr()
    assert (f"reviewbot: HEAD ({sha[:12]}) holds no commit that main lacks: there is nothing "
            "to compare\n") in captured.err
    assert "no changes" in captured.out
    repo.commit({"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"})
    assert main([word.format(base="HEAD~1") for word in command]) == 0
    assert "holds no commit" not in capsys.readouterr().err


# ---------------------------------------------------------------- one command's arguments


@pytest.mark.parametrize("argv", [
    ["lint", "k8s/", "--format", "sarif", "--rule", "schema", "--fix", "--diff"],
    ["diff", "main", "HEAD", "apps/", "--format", "json", "--exit-code"],
    ["review", "--base", "main", "--head", "pr", "--platform", "none", "--scope", "all"],
    ["rules", "--format", "json"],
    ["explain", "schema"],
    ["netpol", "connectivity", "k8s/", "--format", "connlist"],
    ["netpol", "diff", "a", "b", "--ref-names", "x,y"],
    ["inventory", "--nodes", "-", "--cluster", "gpu"],
])
def test_the_parser_built_for_one_command_reads_it_as_the_whole_parser(
    argv: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the command being run gets a parser: the same namespace, the same usage line
    (what an error prints) and the same --help of the command, as the parser of every
    command. (The top parser's --help, which lists them all, is made by the whole parser:
    ``reviewbot --help`` names no command.)"""
    from reviewbot.cli import build_parser

    monkeypatch.setenv("COLUMNS", "100")
    whole, lazy = build_parser(), build_parser(argv[0])
    assert vars(lazy.parse_args(argv)) == vars(whole.parse_args(argv))
    assert lazy.format_usage() == whole.format_usage()
    command = argv[:2] if argv[0] == "netpol" else argv[:1]

    def help_of(parser: Any) -> str:
        for name in command:
            parser = next(a for a in parser._actions if a.dest in ("command", "netpol_command")
                          ).choices[name]
        return str(parser.format_help())

    assert help_of(lazy) == help_of(whole)


def test_ctrl_c_exits_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          capsys: pytest.CaptureFixture[str]) -> None:
    from reviewbot.commands import lint

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(lint, "lint_command", interrupted)
    assert main(["lint", str(tmp_path)]) == 130
    assert capsys.readouterr().err == "reviewbot: interrupted\n"


def test_an_internal_error_never_shows_a_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from reviewbot.commands import lint

    token = "ghp_" + "k" * 36
    monkeypatch.setenv("GITHUB_TOKEN", token)

    def failing(args: object) -> int:  # a library that quotes the request it failed on
        raise RuntimeError(f"GET https://x-access-token:{token}@github.com/o/r.git failed")

    monkeypatch.setattr(lint, "lint_command", failing)
    assert main(["lint", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: internal error: RuntimeError: GET https://x-access-token:***@")
    assert token[:8] not in err


def _parsers(parser: Any, names: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every parser of the tree under ``parser``, with the command words that reach it."""
    yield names, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _parsers(child, (*names, name))


@pytest.mark.parametrize("columns", ["12", "80", "160"])
def test_the_help_formatter_asks_the_width_late_and_formats_as_argparse_does(
    columns: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parsers format with a formatter that asks the terminal's width only when it
    formats: every help text and usage line (what an error prints) is the one argparse's
    own formatter writes, at any width, and each parser's prog is the one argparse derives
    (``add_subparsers`` is given it rather than formatting a usage line for it)."""
    from reviewbot.cli import build_parser

    monkeypatch.setenv("COLUMNS", columns)
    found = list(_parsers(build_parser()))
    assert {names for names, _ in found} == {
        (), ("lint",), ("diff",), ("review",), ("rules",), ("explain",), ("netpol",),
        ("netpol", "connectivity"), ("netpol", "diff"), ("inventory",)}
    for names, parser in found:
        assert parser.prog == " ".join(("reviewbot", *names))
        ours = (parser.format_help(), parser.format_usage())
        parser.formatter_class = argparse.HelpFormatter
        assert (parser.format_help(), parser.format_usage()) == ours, names



@pytest.mark.parametrize(("extra", "code"), [([], 1), (["--fail-on", "none"], 0),
                                             (["--format", "nope"], 2)])
def test_the_script_ends_as_the_interpreter_would(tmp_path: Path, extra: list[str],
                                                  code: int) -> None:
    """``main()`` ends the process itself (``cli._end``): the exit status is the command's,
    stdout holds the whole report, stderr what was said, and the ``atexit`` callbacks ran
    after it (their output last), as the interpreter's own exit does; with ``threading``
    imported the interpreter's exit runs, with the same outcome."""
    import subprocess
    import sys

    # a manifest kustomize refuses (a key written twice): an error
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\na: 1\na: 2\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [a.yaml]\n")
    args = ["lint", str(tmp_path), "--format", "json", *extra]
    expected = main(list(args)) if code != 2 else 2
    assert expected == code
    for threads in ("", "import threading; "):
        script = (f"import atexit, sys; {threads}atexit.register(print, 'atexit ran'); "
                  "atexit.register(print, 'to stderr', file=sys.stderr); "
                  "from reviewbot.cli import main; sys.exit(main())")
        done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                              text=True, check=False)
        assert done.returncode == code, done.stderr
        assert done.stdout.endswith("atexit ran\n")
        assert done.stderr.endswith("to stderr\n")
        if code != 2:
            report = json.loads(done.stdout.removesuffix("atexit ran\n"))
            assert [f["rule"] for f in report["findings"]] == ["yaml-syntax"]
        else:
            assert "invalid choice" in done.stderr


def test_what_a_lint_built_is_held_only_by_a_process_that_ends_with_it(tmp_path: Path) -> None:
    """The script's lint holds its tree, configuration and result until the process ends
    (``output.hold``: freed by the exit, not object by object when the command returns); a
    process that goes on after ``main(argv)`` holds nothing."""
    import subprocess
    import sys

    from reviewbot import output

    # a manifest kustomize refuses (a key written twice): an error
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\na: 1\na: 2\n")
    (tmp_path / "kustomization.yaml").write_text("resources: [a.yaml]\n")
    args = ["lint", str(tmp_path), "--format", "json", "--output", str(tmp_path / "o.json")]
    assert main(list(args)) == 1 and output._held is None
    script = ("import atexit, sys; from reviewbot import output; atexit.register(lambda: "
              "print([type(o).__name__ for o in output._held])); "
              "from reviewbot.cli import main; sys.exit(main())")
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 1, done.stderr
    assert done.stdout == "['Tree', 'Config', 'Result']\n"


# ---------------------------------------------------------------- --quiet


def test_quiet_prints_the_findings_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """New-user trial eighty-four W5: no `--quiet`. As ruff's: the findings, nothing else
    (no counts, roots or schema lines, no notice of a missing .reviewbot.yaml); the exit
    code unchanged."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "web.yaml").write_text(textwrap.dedent("""\
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: web}
        spec:
          selector: {matchLabels: {app: web}}
          template:
            metadata: {labels: {app: wbe}}
            spec:
              containers: [{name: web, image: "web:1@sha256:%s"}]
        """ % ("0" * 64)))
    assert main(["lint", ".", "--color", "never"]) == 1
    loud = capsys.readouterr()
    assert main(["lint", ".", "-q", "--color", "never"]) == 1
    quiet = capsys.readouterr()
    assert quiet.err == "" and "no .reviewbot.yaml" in loud.err
    assert quiet.out.splitlines() == loud.out.splitlines()[:len(quiet.out.splitlines())]
    assert "error" in quiet.out and "looked in" not in quiet.out and "roots:" not in quiet.out
    (tmp_path / "web.yaml").write_text(
        (tmp_path / "web.yaml").read_text().replace("app: wbe", "app: web"))
    assert main(["lint", ".", "--quiet"]) == 0
    assert capsys.readouterr().out == ""
