"""The default ``resources`` of charts whose own ``values.yaml`` reviewbot has read.

Helm renders a release from the chart's ``values.yaml`` with the release's values merged over
it, maps key by key (``chartutil.CoalesceValues``; a key the values set to ``null`` is
deleted): a ``resources`` block the values write in part keeps the chart's defaults for the
rest. reviewbot runs no Helm and holds no chart, so what a chart leaves by default is known
only for the charts below, each read from its own ``values.yaml`` (chart name as a
HelmRelease, an Argo CD source or a ``helmCharts`` entry names it -> the component's path in
the values, ``()`` for the top -> its default ``resources``). A component not listed, or a
chart not listed, is unknown: what its values leave out is not seen.

- ``coredns`` (github.com/coredns/helm, charts/coredns/values.yaml; identical from chart
  1.16.4 to 1.46.2, 2026-07): ``resources`` limits and requests cpu 100m, memory 128Mi;
  ``autoscaler.resources`` limits and requests cpu 20m, memory 10Mi. homelabs'
  coredns HelmReleases write ``limits: {memory: ...}`` alone: the cpu limit is the chart's.
- ``cert-manager`` (github.com/cert-manager/cert-manager, deploy/charts/cert-manager/
  values.yaml at its 2026 HEAD): ``resources: {}`` for the controller, ``webhook``,
  ``cainjector`` and ``startupapicheck``.
- ``forgejo`` (code.forgejo.org/forgejo-helm/forgejo-helm, values.yaml; its mirror at
  e78fa53, 2025-12-10): ``resources: {}``; ``initContainers.resources`` limits ``{}``,
  requests cpu 100m, memory 128Mi.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reviewbot.load.paths import Path

DEFAULT_RESOURCES: Mapping[str, Mapping[Path, Mapping[str, Any]]] = {
    "coredns": {
        (): {"limits": {"cpu": "100m", "memory": "128Mi"},
             "requests": {"cpu": "100m", "memory": "128Mi"}},
        ("autoscaler",): {"limits": {"cpu": "20m", "memory": "10Mi"},
                          "requests": {"cpu": "20m", "memory": "10Mi"}},
    },
    "cert-manager": {(): {}, ("webhook",): {}, ("cainjector",): {}, ("startupapicheck",): {}},
    "forgejo": {
        (): {},
        ("initContainers",): {"limits": {}, "requests": {"cpu": "100m", "memory": "128Mi"}},
    },
}
