"""Planning (what to post, fold, delete), summary rendering, and the retrier, without HTTP."""

from __future__ import annotations

import random

import pytest

from reviewbot.forge.base import ForgeError
from reviewbot.forge.diffmap import DiffMap, FileLines
from reviewbot.forge.reconcile import (
    MAX_BODY,
    SUMMARY_MARKER,
    ExistingComment,
    fingerprint_of,
    inline_body,
    is_summary,
    pick_summary,
    plan_by_review,
    plan_inline,
    render_summary,
    safe_fingerprint,
)
from reviewbot.forge.retry import (
    HttpFailure,
    Retrier,
    RetryPolicy,
    is_retryable,
    retry_after_seconds,
    scrub,
)

from .conftest import comment, payload
from .fake_forge import FakeClock

DIFF = DiffMap({"f.yaml": FileLines("f.yaml", ((1, 10), (20, 25)))})


def test_plan_splits_candidates() -> None:
    plan = plan_inline(
        payload(
            comment("a", 2, path="f.yaml"),
            comment("b", 15, path="f.yaml"),
            comment("c", 22, path="f.yaml", start=5),  # span crosses hunks: single line
            comment("a", 3, path="f.yaml"),  # same fingerprint: once
            comment("d", 1, path="g.yaml"),
        ),
        [ExistingComment(1, "gone"), ExistingComment(2, "c"), ExistingComment(3, "c")],
        DIFF,
    )
    assert [p.fingerprint for p in plan.post] == ["a"]
    assert [f.fingerprint for f in plan.folded] == ["b", "d"]
    assert plan.present == 1 and plan.stale == (1, 3)


def test_plan_keeps_valid_spans_and_caps_inline() -> None:
    many = [comment(f"x{i}", 1 + i % 10, path="f.yaml") for i in range(8)]
    plan = plan_inline(
        payload(comment("s", 8, path="f.yaml", start=3), *many), [], DIFF, max_inline=3
    )
    assert plan.post[0].start_line == 3
    assert len(plan.post) == 3 and len(plan.folded) == 6


def test_a_suggestion_off_the_diff_posts_the_finding_at_its_own_line_without_it() -> None:
    """New-user trial twenty-four: an error at a changed line (36) whose fix replaces lines
    73-76, outside the diff, was folded whole ("Not shown inline"); it is posted at its own
    line, without the suggestion. Where its own line is not in the diff either, it folds."""
    from dataclasses import replace

    suggested = replace(comment("g", 14, path="f.yaml", start=12),
                        plain=(3, "**error** plain body"))
    nowhere = replace(comment("h", 14, path="f.yaml"), plain=(16, "**error** other"))
    plan = plan_inline(payload(suggested, nowhere), [], DIFF)
    assert [(p.fingerprint, p.line, p.start_line, p.body) for p in plan.post] == [
        ("g", 3, None, "**error** plain body")]
    assert [f.fingerprint for f in plan.folded] == ["h"]


def test_summary_mode_and_no_diff_fold_everything() -> None:
    p = payload(comment("a", 2, path="f.yaml"), mode="summary")
    plan = plan_inline(p, [ExistingComment(9, "a")], DIFF)
    assert plan.post == () and len(plan.folded) == 1 and plan.stale == ()
    assert len(plan_inline(payload(comment("a", 2, path="f.yaml")), [], None).folded) == 1


def test_plan_by_review_deletes_whole_reviews() -> None:
    existing = [
        ExistingComment(1, "keep", 100),
        ExistingComment(2, "gone", 100),
        ExistingComment(3, "other", 200),
        ExistingComment(4, "other", 300),  # duplicate of review 200's
    ]
    wanted = payload(comment("keep", 2, path="f.yaml"), comment("other", 3, path="f.yaml"))
    plan, doomed = plan_by_review(wanted, existing, DIFF)
    assert doomed == {100, 300}
    assert [p.fingerprint for p in plan.post] == ["keep"]  # re-posted from the doomed review
    assert plan.present == 1 and plan.stale == ()


def test_fingerprint_markers_roundtrip_and_hostile_fingerprints() -> None:
    body = inline_body(comment("rule:obj/x y", 1, body="text <!-- reviewbot:fp:fake -->"))
    fp = fingerprint_of(body)
    assert fp == safe_fingerprint("rule:obj/x y") and len(fp) == 40
    assert safe_fingerprint("abc-1.2_3") == "abc-1.2_3"
    assert fingerprint_of("no marker") is None and fingerprint_of(None) is None


def test_summary_rendering_and_size_cap() -> None:
    assert is_summary(render_summary("hello", []))
    assert not is_summary("quote: " + SUMMARY_MARKER)
    folded = [comment(f"f{i}", i, body="x" * 5000) for i in range(1, 40)]
    text = render_summary("# Summary\n" + "s" * 70_000, folded)
    assert len(text) <= MAX_BODY
    assert "(truncated)" in text and "x" * 100 not in text  # pointers, not a second copy
    assert all(f"line {i}\n" in text for i in range(1, 40))
    small = render_summary("ok", [comment("a", 3, start=1, body="line one\nline two")], "why")
    assert "lines 1-3" in small and "line two" not in small and "why" in small


def test_the_folded_heading_counts_findings_and_places_when_they_differ() -> None:
    """New-user trial twelve: "Not shown inline (7)" above six lines (two findings at one
    line): the heading says both when they differ."""
    two_at_one = [comment("a", 3), comment("b", 3), comment("c", 9)]
    assert "### Not shown inline (3 at 2 places)" in render_summary("ok", two_at_one)
    assert "### Not shown inline (2)" in render_summary("ok", two_at_one[1:])


def test_pick_summary() -> None:
    own = [(5, "x"), (9, f"{SUMMARY_MARKER}\nB"), (7, f"  {SUMMARY_MARKER}\nA")]
    assert pick_summary(own) == ((7, f"  {SUMMARY_MARKER}\nA"), (9,))
    assert pick_summary([(1, "plain")]) == (None, ())


# -- retry ---------------------------------------------------------------------------------


def test_retry_after_forms() -> None:
    now = 1_714_564_800.0  # Wed, 01 May 2024 12:00:00 GMT
    assert retry_after_seconds({"retry-after": "12"}, now) == 12.0
    assert retry_after_seconds({"retry-after": "Wed, 01 May 2024 12:00:30 GMT"}, now) == 30.0
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now) + 5)}
    assert retry_after_seconds(reset, now) == 5.0
    assert (
        retry_after_seconds({"x-ratelimit-remaining": "10", "x-ratelimit-reset": "1"}, now) is None
    )
    assert retry_after_seconds({"retry-after": "soon"}, now) is None


@pytest.mark.parametrize(
    ("status", "headers", "write", "sent", "expected"),
    [
        (500, {}, True, True, True),
        (502, {}, False, True, True),
        (429, {}, True, True, True),
        (403, {}, True, True, False),
        (403, {"retry-after": "3"}, True, True, True),
        (403, {"x-ratelimit-remaining": "0"}, False, True, True),
        (404, {}, False, True, False),
        (422, {}, True, True, False),
        (None, {}, False, True, True),
        (None, {}, True, True, False),  # a write that may have landed is not repeated
        (None, {}, True, False, True),  # refused before sending: safe
    ],
)
def test_retryable_matrix(
    status: int | None, headers: dict[str, str], write: bool, sent: bool, expected: bool
) -> None:
    failure = HttpFailure(status, "m", headers, sent=sent)
    assert is_retryable(failure, write=write) is expected


def test_backoff_grows_and_is_capped() -> None:
    clock = FakeClock()
    policy = RetryPolicy(max_attempts=6, base_delay=1.0, max_delay=4.0, deadline=1000)
    retrier = Retrier(clock, policy, rng=random.Random(3))
    calls = []

    def flaky() -> str:
        calls.append(clock.monotonic())
        if len(calls) < 6:
            raise HttpFailure(503, "busy")
        return "ok"

    assert retrier.call("GET x", flaky) == "ok"
    assert len(clock.sleeps) == 5
    ceilings = [1.0, 2.0, 4.0, 4.0, 4.0]
    assert all(0.0 <= s <= top for s, top in zip(clock.sleeps, ceilings, strict=True))


def test_deadline_counts_all_waits_and_scrubs() -> None:
    clock = FakeClock()
    retrier = Retrier(clock, RetryPolicy(max_attempts=100, deadline=30.0), secrets=("s3cr3t",))

    def always() -> None:
        raise HttpFailure(429, "limited for s3cr3t", {"Retry-After": "10"})

    with pytest.raises(ForgeError) as info:
        retrier.call("GET y", always)
    assert sum(clock.sleeps) <= 30.0 and len(clock.sleeps) == 2
    assert "s3cr3t" not in info.value.message
    assert scrub("a s3cr3t b s3cr3t", ("s3cr3t", "")) == "a *** b ***"


def test_permanent_failure_propagates_scrubbed() -> None:
    retrier = Retrier(FakeClock(), RetryPolicy(), secrets=("tok",))

    def bad() -> None:
        raise HttpFailure(401, "Bad credentials tok")

    with pytest.raises(HttpFailure) as info:
        retrier.call("GET z", bad)
    assert info.value.message == "Bad credentials ***"


def test_the_folded_places_name_their_finding_and_come_before_the_footer() -> None:
    """New-user trial sixty-nine W3: "Not shown inline" came after the footer (`<sub>reviewbot
    compared ...</sub>`), and listed `file line 40` alone, to match back to findings by
    hand. Each place says what is there; the footer stays last."""
    summary = "## 1 error\n\n- finding\n\n<sub>reviewbot compared head `abc`.</sub>"
    folded = [comment("a", 13, body="**error** `kustomize-integrity[dependency]`: Kustomization "
                      "flux-system/a depends on b\n\n**Fix:** Name it."),
              comment("b", 6, body="5 findings of `change-safety` at this line (1 error, 4 "
                      "infos):\n\n**error** ...")]
    text = render_summary(summary, folded)
    assert text.rstrip().endswith("<sub>reviewbot compared head `abc`.</sub>")
    assert text.index("### Not shown inline (2)") < text.index("<sub>reviewbot compared")
    assert "line 13: **error** `kustomize-integrity[dependency]`\n" in text
    assert "line 6: 5 findings of `change-safety` at this line (1 error, 4 infos)\n" in text
