"""The file parses within limits: syntax, duplicate keys, alias bombs, depth, size, encoding.

What it checks:

A manifest that does not parse is never applied, and a parser that expands an alias bomb
(billion laughs, CVE-2019-11253) or recurses without bound takes the reviewer down with it.
reviewbot parses with bounded alias expansion (100,000 nodes beyond those written), nesting
depth (100) and file size (4 MiB), reads scalars as Kubernetes does (YAML 1.1), and turns
every failure into a finding at the line and column of the problem. The message names the
problem and never quotes the text around it, which may be a Secret.

Kinds:

- `placeholder` (warning): the failing line (or the one before it) starts a value with a
  placeholder in single braces, `image: {docker_username}/iris-classifier`: a sample a reader
  completes before applying, which does not parse as written; or is a line of its own that
  is one placeholder in angle brackets, `<CERT_MANAGER_ISSUER_ANNOTATION>`, which a template
  repository's tool replaces with lines of YAML (kubefirst's gitops-template); or a
  variable (`[vault.${CLUSTER_DOMAIN}:8200]`) in a file no kustomize build reads, which
  what applies it must substitute before parsing (envsubst). Where a build reads it (a
  Flux Kustomization's path), it is the error: kustomize parses the file before Flux's
  postBuild substitutes, so the build fails, and the message says so. A file only a
  ConfigMap or Secret generator reads is text to kustomize: where every Flux Kustomization
  applying it substitutes and the file parses with each variable a plain word, nothing is
  said (Helm reads the substituted values: `[vault.${CLUSTER_DOMAIN}:8200]`).
- `values-duplicate` (warning): a key written twice in a Helm values file (a file named as
  values are, no document of it naming an `apiVersion` or `kind` at its top: a values key
  `deployment.kind` is a value): Helm reads values without refusing it and
  keeps the later value, so the chart renders and the earlier value is silently dropped
  (ibm-mas/gitops' aiservice values).

- `kustomization-duplicate` (warning): a key written twice in a kustomization file:
  kustomize reads it without refusing, and keeps the later value (kustomize v5.5 measured:
  a second `resources:` drops the first's entries from the build, whatever the depth), so
  reviewbot builds it so, and the earlier value is said to be dropped.
- `manifest-duplicate` (warning): a key written twice in a manifest that no kustomize
  build reads, applied as written (by kubectl, or an Argo CD Application's folder without a
  kustomization, whose directory source decodes YAML as kubectl does): kubectl keeps the
  later value (measured with kubectl 1.32, `kubectl label --local -f`), so the object is
  applied and the earlier value silently dropped (ZackZhouHB/zack-gitops-project's carts
  ConfigMap). kustomize refuses such a file ("mapping key already defined"), so where a
  build reads it (a kustomization lists it, a Flux Kustomization's path holds it) that build
  fails: an error. reviewbot judges nothing else of such a file.

When it stays quiet:

Files reviewbot does not read as manifests: Helm chart templates (`templates/` with `{{
}}`), which are listed as skipped, and files that are not YAML. A key written twice in an
object's `metadata.annotations` (or `annotations` twice in its `metadata`) where only
kustomize reads the file (a kustomization lists it, a Flux Kustomization or an Argo CD
Application builds its folder): kustomize keeps the later value (and adds the keys a second
`annotations` has that the first lacks), so the cluster gets the object; applied as written,
kubectl keeps the later annotations (`manifest-duplicate`).

Not certain (a warning that says so): in a repository without roots, where every file is
applied as written, a syntax error or a duplicate key in a file that names no `apiVersion`
or `kind` on any line and is no Helm values or kustomization file: nothing shows that
anything applies it (kueue's `keps/*/kep.yaml` metadata, an Alertmanager configuration among
examples, a go-task Taskfile). The same
for a syntax error, a duplicate key or a mapping key that is a collection in a file only a
ConfigMap or Secret generator reads, as data, naming no `apiVersion` or `kind` and no Helm
values file: the program reading the ConfigMap parses it with its own grammar
(soulwhisper/home-ops' authentik blueprints, `!KeyOf *alias`; Fluent Bit takes a key written
twice as two settings; homepage's js-yaml reads `{ { VAR } }` as a key). Elsewhere a
duplicate key or a limit crossed (an alias bomb, depth, size) stays an error.

Failing example:

```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  name: app-2   # duplicate mapping key
```

Passing example:

```yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
```
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from typing import Any

from reviewbot.engine.findings import Violation
from reviewbot.load.loader import COMPLEX_KEY, SYNTAX_ERROR
from reviewbot.model.kustomize import generator_files, is_kustomization_file
from reviewbot.model.objects import Model, appliers, model_graph
from reviewbot.model.values import VALUES_NAME

# an unquoted value starting with a placeholder in single braces: `image: {user}/model`
_PLACEHOLDER = re.compile(r":\s+\{[A-Za-z][\w-]*\}\S")
# a line that is one placeholder in angle brackets, which a template tool replaces with lines
_LINE_PLACEHOLDER = re.compile(r"^\s*(?:-\s+)?<[A-Za-z][\w.-]*>\s*$")
_VARIABLE = re.compile(r"\$\{[A-Za-z_]\w*(?::?[=-][^}]*)?\}")  # Flux's ${VAR}, ${VAR:=x}
# a repository without roots: a file nothing shows is a manifest
NO_MANIFEST = ("whether anything applies this file: it names no apiVersion or kind, as a "
               "manifest does (a tool's configuration or metadata is YAML too)")
GENERATOR_DATA = ("whether what reads this file takes it: only a ConfigMap or Secret generator "
                  "reads it, as data, and the program that reads that ConfigMap parses it "
                  "with its own YAML (authentik's blueprint tags are no YAML kubectl reads)")
_MANIFEST_KEY = re.compile(r"^\s*(?:-\s+)?(?:apiVersion|kind)\s*:", re.M)
ID = "yaml-syntax"
SEVERITY = "error"
SEVERITIES = {"placeholder": "warning", "values-duplicate": "warning",
              "manifest-duplicate": "warning", "kustomization-duplicate": "warning"}
SUMMARY = "The file parses as YAML within reviewbot's safety limits."
RATIONALE = (
    "A file that does not parse is not applied; hostile YAML (alias bombs, deep nesting, huge "
    "files) must be refused quickly and located, never crash the review."
)
FIX = "Fix the YAML at the reported line and column."
OPTIONS: tuple[Any, ...] = ()


def check_set(model: Model, opts: Any) -> Iterator[Violation]:
    no_roots = model.derived.get("reach") is None  # every file applied as written
    data = {path for k in model.kustomizations for _, _, path in generator_files(k)}
    for lf in model.files.values():
        if lf.path in model.unapplied and not (
                lf.problems and not lf.documents and is_kustomization_file(lf.path)):
            continue  # no cluster receives it (kustomize-integrity says so once per folder);
            # a kustomization file that does not parse is no folder's kustomization, so its
            # folder looks unapplied: it is what the builds read (new-user trial forty)
        lines = lf.text.splitlines() if lf.problems else []
        for problem in lf.problems:
            if problem.message.startswith(DUPLICATE_KEY) and is_kustomization_file(lf.path):
                yield Violation(  # (the loader read it as kustomize does: _kept_later)
                    None, (), _key_named(problem.message, lines, problem.line,
                                         problem.column),
                    file=lf.path, line=problem.line, column=problem.column,
                    key=f"{lf.path}:{problem.message}", kind="kustomization-duplicate",
                    fix="Merge the two into one, or delete the one you did not mean.")
                continue
            if problem.kustomize_reads and lf.path not in model.refused:
                continue  # every build that reads it is kustomize's, which takes it
            said = _key_named(problem.message, lines, problem.line, problem.column)
            first = max(problem.line - 2, 0)  # the failing line and the one before it
            near = lines[first:problem.line] if lines else []
            if any(_PLACEHOLDER.search(text) for text in near):
                what = ("the line holds a placeholder in braces (`{name}`) a reader replaces "
                        "before applying, so the file as written is a template, not a manifest")
            elif found := [n for n, text in enumerate(near, first + 1)
                           if _LINE_PLACEHOLDER.match(text)]:
                what = (f"line {found[-1]} is one placeholder in angle brackets (`<NAME>`) a "
                        "template tool replaces with YAML before applying, so the file as "
                        "written is a template, not a manifest")
            elif any(_VARIABLE.search(text) for text in near) and (
                    lf.path not in model.kustomized):
                what = ("the line holds a variable (`${NAME}`): what applies the file must "
                        "substitute its text before parsing it (envsubst), as no kustomize "
                        "build reads it")
            else:
                what = ""
            # a file only generators read is data kustomize never parses: Flux's postBuild
            # substitutes the ConfigMap it makes, then Helm (valuesFrom) or the program that
            # reads it parses it (judge round DN: pi-cluster's `[vault.${CLUSTER_DOMAIN}:8200]`
            # values, "kustomize parses the file", a false error)
            as_data = lf.path in data and lf.path not in model_graph(model).resource_files
            if as_data and not what and any(_VARIABLE.search(text) for text in near) and (
                    _substituted_parses(model, lf.path, lf.text)):
                continue
            # (a build parses the file before Flux's postBuild substitutes: kustomize-
            # controller runs kustomize, then substitutes what it made; new-user trial
            # sixty-seven D1: `hosts: [blog.${CLUSTER_DOMAIN}]` was called substituted first)
            built = "" if what or as_data or lf.path not in model.kustomized or not any(
                _VARIABLE.search(text) for text in near) else (
                "; kustomize parses the file before Flux's postBuild substitutes its "
                "variables (kustomize-controller builds first), so the build that reads it "
                "fails: quote the value that holds the variable")
            if problem.message.startswith(DUPLICATE_KEY) and _values_file(lf.path, lf.text):
                yield Violation(
                    None, (), f"{said}; Helm reads values files without refusing a "
                    "duplicate key and keeps the later value, so the earlier one is silently "
                    "dropped", file=lf.path, line=problem.line, column=problem.column,
                    key=f"{lf.path}:{problem.message}", kind="values-duplicate",
                    fix="Delete the key Helm drops, or merge the two into one.",
                )
                continue
            if problem.message.startswith(DUPLICATE_KEY) and (
                    problem.kustomize_reads or lf.path not in model.kustomized) and (
                    _MANIFEST_KEY.search(lf.text)):
                # applied as written: kubectl (and Argo CD's directory source, which decodes
                # as kubectl does) keeps the later value (kubectl 1.32 measured); a chart's
                # template without template text is rendered as written and decoded by the
                # client Helm shares with kubectl (cli-runtime's resource builder)
                how = ("; Helm renders it as written, and the decoder its client shares with "
                       "kubectl keeps" if _chart_template(model, lf.path) else
                       ", and kubectl (as Argo CD's directory source) keeps")
                yield Violation(
                    None, (), f"{said.split('): ', 1)[0].rstrip(')')}); no kustomize build reads "
                    f"this file{how} the later value, so the object is applied with the "
                    "earlier one silently dropped (reviewbot judged nothing else of it)",
                    file=lf.path, line=problem.line,
                    column=problem.column, key=f"{lf.path}:{problem.message}",
                    kind="manifest-duplicate",
                    fix="Delete the key kubectl drops, or merge the two into one.",
                )
                continue
            if what:
                yield Violation(
                    None, (), f"{said}; {what}", file=lf.path,
                    line=problem.line, column=problem.column,
                    key=f"{lf.path}:{problem.message}", kind="placeholder",
                    fix="Replace the placeholder, or quote it if the file is meant to parse.",
                )
                continue
            doubt = None
            if problem.message.startswith(_GRAMMAR) and (
                    lf.path in data and not _MANIFEST_KEY.search(lf.text)
                    and not VALUES_NAME.search(lf.path.rpartition("/")[2])):
                doubt = GENERATOR_DATA  # its reader's grammar decides (Fluent Bit: keys twice)
            elif problem.message.startswith(_GRAMMAR) and no_roots and (
                    _no_manifest(lf.path, lf.text)):
                doubt = NO_MANIFEST  # (davosian/home-cluster-v2: a go-task Taskfile)
            yield Violation(
                None, (), said + built, file=lf.path, line=problem.line,
                column=problem.column, key=f"{lf.path}:{problem.message}", doubt=doubt,
                fix=("Quote the value that holds the variable (`hosts: ['blog.${DOMAIN}']`)."
                     if built else _syntax_fix(problem.message)),
            )


def _substituted_parses(model: Model, path: str, text: str) -> bool:
    """Whether the data file ``path`` parses once Flux's postBuild has substituted its
    variables, each taken to be a plain word: every Flux Kustomization that applies it
    substitutes (``spec.postBuild``), and its text, each ``${VAR}`` a word, parses."""
    from reviewbot.load.loader import load
    from reviewbot.sources.tree import FileRecord

    found = appliers(model).get(path, ())
    if not found or any(a.kind != "Kustomization" or not isinstance(
            a.get(("spec", "postBuild")), dict) for a in found):
        return False
    words = _VARIABLE.sub("x", text).encode("utf-8")
    return not load(FileRecord(path, None, words)).problems


DUPLICATE_KEY = "duplicate mapping key"
# the problems another program's YAML may not share: its grammar decides (a limit crossed is
# reviewbot's own refusal, whoever reads the file)
_GRAMMAR = (SYNTAX_ERROR, DUPLICATE_KEY, COMPLEX_KEY)

# what the usual parser messages ask of the line (new-user trial sixteen: "Fix the YAML at the
# reported line and column" told nothing); the file's text is never quoted
_SYNTAX_FIXES = (
    ("mapping values are not allowed here", "Quote the value that holds ': ' on this line "
     "(`key: 'a: b'`), or put the key on a line of its own, indented under its parent."),
    ("(a tab in indentation)", "Indent this line with spaces: YAML does not allow tabs in "
     "indentation."),
    ("that cannot start any token", "Quote the value that starts with this character "
     "(`@` and `` ` `` are reserved in YAML)."),
    ("expected <block end>", "Align this line with the keys (or list items) it belongs to: "
     "its indentation is between two levels."),
    ("could not find expected ':'", "Add the `:` after the key on this line, or quote a text "
     "that runs over several lines."),
    ("expected ',' or ']'", "Close the `[` list before this point, or separate its items "
     "with commas."),
    ("expected ',' or '}'", "Close the `{` mapping before this point, or separate its "
     "entries with commas."),
)


def _syntax_fix(message: str) -> str | None:
    """The fix of a syntax error the parser names as the usual ones (None: the rule's)."""
    return next((fix for needle, fix in _SYNTAX_FIXES if needle in message), None)


def _chart_template(model: Model, path: str) -> bool:
    """Whether ``path`` is in the ``templates/`` folder of a chart of the tree (a
    ``Chart.yaml`` in the folder above it)."""
    head, found, _ = f"/{path}".partition("/templates/")
    return bool(found) and posixpath.join(head.lstrip("/"), "Chart.yaml") in model.files


def _values_file(path: str, text: str) -> bool:
    """A Helm values file (its name says so) and no manifest (no document names an
    ``apiVersion`` or ``kind`` at its top: a values key ``deployment.kind`` is a value,
    LorenzoMancuso/home-cluster's traefik values): Helm, not kubectl, reads it."""
    return bool(VALUES_NAME.search(path.rpartition("/")[2])) and not _TOP_MANIFEST_KEY.search(
        text)


_TOP_MANIFEST_KEY = re.compile(r"^(?:apiVersion|kind)\s*:", re.M)


def _no_manifest(path: str, text: str) -> bool:
    """Whether nothing in ``path`` shows a manifest: no line names an ``apiVersion`` or a
    ``kind``, and it is no Helm values or kustomization file (which hold neither)."""
    return not _MANIFEST_KEY.search(text) and not VALUES_NAME.search(
        path.rpartition("/")[2]) and not is_kustomization_file(path)


# a key as a reader can name it: plain, on one line, short (anything else is not quoted)
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_.\-/]{1,63}")


def _key_named(message: str, lines: list[str], line: int, column: int) -> str:
    """``message`` with the key written twice named (`` `name` ``) when it is a duplicate
    key and the text at its place is a plain key (the loader's messages quote no content:
    the rule reads the file's own line). The finding's key stays the loader's message."""
    if not message.startswith(DUPLICATE_KEY) or not 0 < line <= len(lines):
        return message
    found = _PLAIN_KEY.match(lines[line - 1], max(column - 1, 0))
    rest = lines[line - 1][found.end():].lstrip() if found else ""
    if found is None or not rest.startswith(":"):
        return message
    return f"{DUPLICATE_KEY} `{found.group()}`{message[len(DUPLICATE_KEY):]}"
