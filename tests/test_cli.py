"""The command line as a new user meets it: help, version, exit codes."""

from __future__ import annotations

import importlib.metadata

import pytest

from reviewbot import __version__
from reviewbot.cli import main


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
