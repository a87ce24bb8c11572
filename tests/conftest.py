"""Hypothesis profiles for the fuzz tests (``-m fuzz``): ``ci`` is the default, a few hundred
examples in about two minutes; ``long`` runs by hand for as long as it takes
(``pytest -m fuzz --hypothesis-profile=long``, or ``REVIEWBOT_FUZZ_PROFILE=long``; its number
of examples per test from ``REVIEWBOT_FUZZ_EXAMPLES``, 5,000 unless set). The long profile
also grows the hostile shapes (deeper graphs, longer rule lists, more Flux appliers)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=_QUIET, print_blob=True)
settings.register_profile("long", max_examples=int(os.environ.get("REVIEWBOT_FUZZ_EXAMPLES",
                                                                  "5000")),
                          deadline=None, suppress_health_check=_QUIET, print_blob=True)
settings.load_profile(os.environ.get("REVIEWBOT_FUZZ_PROFILE", "ci"))
