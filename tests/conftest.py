"""Hypothesis profiles for the fuzz tests (``-m fuzz``): ``ci`` is the default, a few hundred
examples in well under two minutes; ``long`` runs by hand for as long as it takes
(``pytest -m fuzz --hypothesis-profile=long``)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("long", max_examples=5000, deadline=None,
                          suppress_health_check=_QUIET, print_blob=True)
settings.load_profile("ci")
