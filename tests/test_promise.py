"""An error is a promise about what a cluster receives: a finding whose chain reviewbot could
not see whole is at most a warning, and says what it could not see."""

from __future__ import annotations

from pathlib import Path

from reviewbot.engine.findings import Violation, doubted
from reviewbot.engine.registry import all_rules
from reviewbot.engine.run import make_finding
from tests.helpers import lint_text


def test_a_doubt_makes_an_error_a_warning_that_says_what_could_not_be_seen() -> None:
    assert doubted("error", "x is wrong.", None) == ("error", "x is wrong.")
    severity, message = doubted("error", "x is wrong.", "the chart's values")
    assert severity == "warning"
    assert message == "x is wrong. Not certain: reviewbot could not see the chart's values."
    assert doubted("info", "y.", "z")[0] == "info"
    # a message without a full stop gets one before what could not be seen
    assert doubted("error", "x is wrong", "z")[1] == (
        "x is wrong. Not certain: reviewbot could not see z.")


def test_the_model_s_doubt_about_an_object_reaches_its_findings(tmp_path: Path) -> None:
    model = lint_text(tmp_path, """
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: nginx}]
""", only=["image-digest"]).model
    pod = model.objects[0]
    rule = next(r for r in all_rules() if r.id == "image-digest")
    violation = Violation(pod, ("spec", "containers", 0, "image"), "p: floating.")
    assert make_finding(rule, violation, None, model).severity == "error"
    model.doubts[id(pod)] = "the value of ${APP} in spec.path of ks.yaml"
    found = make_finding(rule, violation, None, model)
    assert found.severity == "warning"
    assert found.message.endswith("could not see the value of ${APP} in spec.path of ks.yaml.")
