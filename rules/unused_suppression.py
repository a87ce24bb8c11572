"""An ignore annotation or comment that matches no finding.

What it checks:

Suppressions outlive the problems they hid. An `reviewbot.dev/ignore: "rule"` annotation or a
`# reviewbot: ignore[rule] reason` comment that no longer matches a finding (or names a rule
that does not exist) hides the next real problem at that place. The engine computes this rule
after every other rule has run: a suppression is used when it silenced at least one finding
of each rule it names. Suppressions for rules switched off in the configuration are not
reported.

When it stays quiet:

Suppressions for rules switched off in the configuration (they would match nothing by
construction).

Failing example:

```yaml
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    reviewbot.dev/ignore: "image-digest"   # the image below is pinned: nothing to ignore
spec:
  containers:
  - name: web
    image: nginx:1.27@sha256:0000000000000000000000000000000000000000000000000000000000000000
```

Passing example:

```yaml
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    reviewbot.dev/ignore: "image-digest"
    reviewbot.dev/ignore-reason: "local registry, tags are immutable"
spec:
  containers:
  - name: web
    image: registry.local/web:1.2
```
"""

from __future__ import annotations

from typing import Any

ID = "unused-suppression"
SEVERITY = "warning"
SUMMARY = "Ignore annotations and comments match a finding."
RATIONALE = (
    "A stale suppression silently hides the next real problem at the same place, and one "
    "naming a misspelt rule never worked at all."
)
FIX = "Remove the suppression, or correct the rule id it names."
OPTIONS: tuple[Any, ...] = ()
