"""Unified-diff parsing: commentable new-side lines per file and per hunk."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from reviewbot.forge.diffmap import DiffMap, FileLines, parse_git_diff, parse_patch, unquote_path

from .conftest import CODER_PATCH
from .fake_forge import FakeFile, FakeForge, files_from_git, right_lines


def test_patch_hunks_are_new_side_ranges() -> None:
    lines = parse_patch("coder.yaml", CODER_PATCH)
    assert lines.hunks == ((10, 17), (42, 45))
    assert lines.contains(13) and lines.contains(42) and not lines.contains(18)
    assert lines.span_ok(10, 17) and not lines.span_ok(17, 42) and not lines.span_ok(14, 13)


def test_no_patch_means_no_lines() -> None:
    assert parse_patch("bin.tar", None) == FileLines("bin.tar")
    assert parse_patch("x", "") == FileLines("x")


def test_deletion_only_hunk_and_default_counts() -> None:
    patch = "@@ -5,2 +4,0 @@\n-gone\n-gone too\n@@ -9 +8 @@\n-a\n+b"
    assert parse_patch("f", patch).hunks == ((8, 8),)


def test_body_lines_that_look_like_headers_are_content() -> None:
    text = "\n".join(
        [
            "diff --git a/a.yaml b/a.yaml",
            "--- a/a.yaml",
            "+++ b/a.yaml",
            "@@ -1,3 +1,3 @@",
            "--- removed: a yaml document separator with a dash",
            "+++ added: looks like a header",
            " kept",
            "-last",
            "diff --git a/b.yaml b/b.yaml",
            "--- a/b.yaml",
            "+++ b/b.yaml",
            "@@ -1 +1,2 @@",
            " x",
            "+y",
        ]
    )
    diff = parse_git_diff(text)
    assert set(diff.files) == {"a.yaml", "b.yaml"}
    assert diff.files["a.yaml"].hunks == ((1, 3),)
    assert diff.files["b.yaml"].hunks == ((1, 2),)


def test_deleted_binary_renamed_and_quoted_paths() -> None:
    text = "\n".join(
        [
            "diff --git a/old.yaml b/old.yaml",
            "deleted file mode 100644",
            "--- a/old.yaml",
            "+++ /dev/null",
            "@@ -1,2 +0,0 @@",
            "-a",
            "-b",
            "diff --git a/logo.png b/logo.png",
            "Binary files a/logo.png and b/logo.png differ",
            "diff --git a/x.yaml b/y.yaml",
            "similarity index 90%",
            "rename from x.yaml",
            "rename to y.yaml",
            "--- a/x.yaml",
            "+++ b/y.yaml",
            "@@ -3 +3 @@",
            "-p",
            "+q",
            'diff --git "a/caf\\303\\251 \\"q\\".yaml" "b/caf\\303\\251 \\"q\\".yaml"',
            '--- "a/caf\\303\\251 \\"q\\".yaml"',
            '+++ "b/caf\\303\\251 \\"q\\".yaml"',
            "@@ -0,0 +1 @@",
            "+new",
            "\\ No newline at end of file",
        ]
    )
    diff = parse_git_diff(text)
    assert set(diff.files) == {"y.yaml", 'café "q".yaml'}
    assert diff.can_comment("y.yaml", 3)
    assert diff.can_comment('café "q".yaml', 1)
    assert not diff.can_comment("old.yaml", 1)


@pytest.mark.parametrize(
    ("quoted", "plain"),
    [("plain/path.yaml", "plain/path.yaml"), ('"a\\tb"', "a\tb"), ('"\\101\\\\"', "A\\")],
)
def test_unquote(quoted: str, plain: str) -> None:
    assert unquote_path(quoted) == plain


def test_can_comment_spans() -> None:
    diff = DiffMap({"f": FileLines("f", ((1, 5), (10, 12)))})
    assert diff.can_comment("f", 3, 1)
    assert not diff.can_comment("f", 10, 5)
    assert not diff.can_comment("g", 1)
    assert diff.can_span("f", 10, 12) and not diff.can_span("f", 4, 11)


def test_agrees_with_git_and_the_fake_on_a_real_repository(tmp_path: Path) -> None:
    """Both readings of real `git diff` output (ours, the fake's) give the same lines."""

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    body = [f"line {i}" for i in range(1, 61)]
    (tmp_path / "a.yaml").write_text("\n".join(body) + "\n")
    (tmp_path / "gone.yaml").write_text("x\n")
    git("add", ".")
    git("commit", "-q", "-m", "base")
    body[4] = "changed 5"
    body.insert(30, "inserted")
    del body[50]
    (tmp_path / "a.yaml").write_text("\n".join(body) + "\n")
    (tmp_path / "b c.yaml").write_text("new\nfile\n")
    (tmp_path / "gone.yaml").unlink()
    git("add", "-A")
    git("commit", "-q", "-m", "head")

    files = files_from_git(tmp_path, "HEAD~1", "HEAD")
    assert {f.filename: f.status for f in files} == {
        "a.yaml": "modified", "b c.yaml": "added", "gone.yaml": "removed"
    }  # fmt: skip
    full = subprocess.run(
        ["git", "-C", str(tmp_path), "diff", "HEAD~1", "HEAD"], capture_output=True, text=True
    ).stdout
    parsed = parse_git_diff(full)
    assert set(parsed.files) == {"a.yaml", "b c.yaml"}
    for f in files:
        if f.status == "removed":
            continue
        expected = set(right_lines(f.patch))
        from_patch = {n for a, b in parse_patch(f.filename, f.patch).hunks for n in range(a, b + 1)}
        from_full = {n for a, b in parsed.files[f.filename].hunks for n in range(a, b + 1)}
        assert from_patch == from_full == expected
    assert parsed.can_comment("a.yaml", 5) and parsed.can_comment("a.yaml", 31)
    assert not parsed.can_comment("a.yaml", 20)
    with FakeForge("forgejo") as forge:  # the fake's synthetic .diff parses the same way
        pull = forge.add_pull("o", "r", 1, files=files)
        synthetic = parse_git_diff(forge.full_diff(pull))
        assert synthetic.files == parsed.files


def test_fake_diff_for_unpatched_file() -> None:
    with FakeForge("forgejo") as forge:
        pull = forge.add_pull("o", "r", 1, files=[FakeFile("img.png", None)])
        assert parse_git_diff(forge.full_diff(pull)).files["img.png"].hunks == ()
