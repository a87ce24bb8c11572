"""What the repository's own CI does to its manifests, read from its workflow files.

A manifest a CI step rewrites before it is applied (``sed -i`` on it, ``yq -i``, ``envsubst >``
into it, ``kustomize edit`` in its kustomization's folder) is a placeholder: what the cluster
receives is not what the repository shows, so an error found in it is at most a warning that
names the step (:func:`apply_doubts` fills ``Model.doubts``). A folder the repository's own
validation skips (``kubeconform -ignore-filename-pattern``, ``kubeval
--ignored-filename-patterns``, a ``find ... -not -path`` feeding ``kustomize build`` or
kubeconform, ``flux build --ignore-paths``) is one the repository does not treat as applied
(:meth:`CiFacts.unapplied_by_ci`; the reachability walk consumes it).

Read (never run): GitHub, Forgejo and Gitea workflows (``jobs.*.steps[].run``, with
``working-directory`` and ``defaults.run``), the composite actions a step ``uses:`` from the
repository (``./.github/actions/x``), GitLab CI ``script`` lists and Cloud Build steps; the
shell scripts those steps run (``./hack/x.sh``, ``bash x.sh``, ``source x.sh``) and the
Makefile targets they call (``make deploy``, ``make -C dir``), recipes and prerequisites.

A manifest a step writes with a kustomize build (``kustomize build DIR >> FILE``) is what
the build of DIR makes (``CiFacts.outputs``): what changes the build's inputs changes it.

Shell is parsed approximately and conservatively: commands are split at ``;``, ``&&``,
``||``, ``|``, parentheses and new lines; ``cd`` to a literal folder moves the working
folder of what follows in the same script (a make recipe line runs in a shell of its own). A
rewrite counts only with a literal path or glob; a path that holds a variable (``$FILE``,
``${{ inputs.x }}``, ``$(VAR)``) gives a rewrite whose target is unknown: the step is named in
``CiFacts.unknown`` and nothing is doubted by it.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import posixpath
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reviewbot.load.loader import LoadedFile, load
from reviewbot.sources.tree import INCLUDED_MAKEFILES, MAKEFILES, FileRecord, Tree

WORKFLOW_DIRS = {".github/workflows/": "workflow", ".forgejo/workflows/": "Forgejo workflow",
                 ".gitea/workflows/": "Gitea workflow"}
GITLAB = (".gitlab-ci.yml", ".gitlab-ci.yaml")
# where ``buildkite-agent pipeline upload`` looks for a repository's pipeline (its docs)
BUILDKITE = ("buildkite.yml", "buildkite.yaml", "buildkite.json", ".buildkite/pipeline.yml",
             ".buildkite/pipeline.yaml", ".buildkite/pipeline.json", "buildkite/pipeline.yml",
             "buildkite/pipeline.yaml", "buildkite/pipeline.json")
CLOUDBUILD = ("cloudbuild.yaml", "cloudbuild.yml")
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
VALIDATORS = ("kubeconform", "kubeval")
TOOLS = frozenset({"kustomize", "kubectl", "oc", "yq", "sed", "envsubst", "kubeconform",
                   "kubeval", "flux", "helm", "skaffold", "make", "perl"})
# steps that commit or propose a job's changes (``uses:``, lowercased, as a substring)
COMMIT_ACTIONS = ("create-pull-request", "auto-commit", "add-and-commit", "push-action",
                  "commit-action", "commit-push", "create-commit", "ghcommit")
ROOT = "\x00root\x00"  # the repository's root in a path ($GITHUB_WORKSPACE, git's top level)
TREE = "\x00tree\x00"  # the top of the tree read (a script's own folder is named from it)
UNKNOWN = "\x00unknown\x00"  # a folder the reading cannot tell (cd $DIR)
MAX_DEPTH = 6  # scripts calling scripts, make targets calling targets
MAX_COMMANDS = 20_000  # per repository: a hostile tree stops being read, it does not hang
MAX_LINE = 8192  # a longer logical line is no command a reader could follow: left out
PROBE = "reviewbot-probe.yaml"  # a file name no pattern targets: "every file of the folder"


# a workflow folder at the top or below it: "/" + folder in "/" + path
_WORKFLOW_STEPS = tuple(f"/{d}" for d in WORKFLOW_DIRS)


def is_ci_file(path: str) -> bool:
    """Whether ``path`` is a CI file this module reads (workflows, composite actions, GitLab
    CI, Buildkite pipelines, Cloud Build, Makefiles, shell scripts). Asked of every file of
    a tree."""
    base = path.rpartition("/")[2]
    slashed = "/" + path
    if any(d in slashed for d in _WORKFLOW_STEPS):
        return path.endswith((".yml", ".yaml"))
    return (base in ("action.yml", "action.yaml") or path in GITLAB or path in BUILDKITE
            or base in CLOUDBUILD
            or base in MAKEFILES or base.endswith((".mk", ".sh", ".bash"))
            or base.startswith(INCLUDED_MAKEFILES))


# ---------------------------------------------------------------- facts


@dataclass(frozen=True)
class Step:
    """Where a command is declared: ``label`` names it as a reader finds it ("workflow
    deploy.yml, job build, step 'Set image'"), ``file``/``line`` where it is written."""

    label: str
    file: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Rewrite:
    """A CI step that rewrites manifests before they are applied.

    ``targets``: repository-relative paths or globs (``*``, ``?``, ``[...]``, as the shell
    expands them) of the files it rewrites, or, with ``folder``, the kustomization folders
    ``kustomize edit`` rewrites; empty when the path holds a variable (the target is not
    known: the rewrite is reported, applied to nothing). ``images``: for ``kustomize edit set
    image``, the image names it sets (``None`` in it: a name that is a variable); ``values``
    beside them, the reference each is set to when the step writes it literally with a tag
    or digest (``kuberay/security-proxy:latest``), else ``None``.
    """

    step: Step
    tool: str  # "sed -i", "yq -i", "kustomize edit set image", "envsubst >", ...
    targets: tuple[str, ...]
    folder: bool = False
    images: tuple[str | None, ...] = ()
    written: str = ""  # the path as the command writes it (for the unknown ones)
    values: tuple[str | None, ...] = ()
    only_images: bool = False  # a sed whose substitutions all rewrite image references

    def describe(self) -> str:
        """"workflow deploy.yml, job build, step 'Set image' runs sed -i on it"."""
        if self.folder:
            return f"{self.step.label} runs {self.tool} in its kustomization's folder"
        if self.tool.endswith(">"):
            return f"{self.step.label} writes it with {self.tool}"
        if self.tool.endswith(" -f -"):
            return f"{self.step.label} applies it through {self.tool}"
        return f"{self.step.label} runs {self.tool} on it"

    @property
    def doubt(self) -> str:
        """What a finding on a rewritten object could not see (``Model.doubts``)."""
        return f"the manifest as CI rewrites it ({self.describe()})"

    def matches(self, path: str) -> bool:
        return any(glob_match(path, t) for t in self.targets)


@dataclass(frozen=True)
class ValidationSkip:
    """A path pattern the repository's own validation leaves out.

    ``style``: ``regex`` (kubeconform/kubeval: searched in the path as the tool walks it,
    relative to ``base``), ``find`` (a ``find`` ``-path`` glob, ``*`` crossing ``/``, matched
    against the path the start points give: ``start``/rest), ``gitignore`` (``flux build
    --ignore-paths``, relative to ``base``).
    """

    step: Step
    tool: str  # "kubeconform -ignore-filename-pattern", "find -not -path", ...
    pattern: str
    style: str  # regex | find | find-prune | gitignore
    base: str = ""  # the repository folder the tool runs in (its paths are relative to it)
    starts: tuple[str, ...] = (".",)  # find's start points, as written

    def skips_folder(self, folder: str) -> bool:
        """Whether every file of ``folder`` (repository-relative) is left out."""
        probe = posixpath.join(folder, PROBE) if folder not in ("", ".") else PROBE
        rel = _relative(probe, self.base)
        if rel is None:
            return False
        if self.style == "regex":
            try:
                return re.search(self.pattern, rel) is not None
            except re.error:
                return False
        if self.style == "gitignore":
            return _gitignored(rel, self.pattern)
        for start in self.starts:
            clean = posixpath.normpath(start)
            if clean == ".":
                shown = f"{start.rstrip('/')}/{rel}" if start.startswith(".") else rel
            elif rel == clean or rel.startswith(clean + "/"):
                shown = start.rstrip("/") + rel[len(clean):]
            else:
                continue
            if self.style == "find-prune":  # a pruned folder: nothing below it is found
                parts = shown.split("/")
                if any(fnmatch.fnmatchcase("/".join(parts[:n]), self.pattern)
                       for n in range(1, len(parts))):
                    return True
            elif fnmatch.fnmatchcase(shown, self.pattern):
                return True
        return False

    def describe(self) -> str:
        import shlex  # here: shlex is imported by what quotes or splits (0.3% of a one-file lint)

        return f"{self.tool} {shlex.quote(self.pattern)} ({self.step.label}, {self.step.where})"


@dataclass(frozen=True)
class ImagePush:
    """A CI step that builds an image and pushes it (``docker/build-push-action`` with
    ``push: true``, its tags as written or a ``docker/metadata-action``'s ``images``):
    ``image`` the repository it pushes to, each ``${{ }}`` expression a ``*``
    (``ghcr.io/*/*``); ``context`` the folder it builds, likewise (``containers/*``; ""
    when the step does not say)."""

    step: Step
    image: str
    context: str
    # the tag it pushes as written, each expression a ``*`` (``latest`` where the name has
    # none: docker's default); None where the step does not say (a metadata-action's tags,
    # ``docker push NAME``)
    tag: str | None = None

    def builds(self, repository: str, paths: Collection[str], tag: str | None = None) -> bool:
        """Whether this step pushes ``repository`` (with ``tag``, when both say theirs: a
        workflow pushing `:1.4.0` does not push `:latest`, new-user trial sixty-six): its
        name matches, and where the last segment is an expression (a matrix over folders), a
        folder of the context by that name holds a Dockerfile
        (``containers/paperless-classifier/Dockerfile``)."""
        if tag is not None and self.tag is not None and not fnmatch.fnmatchcase(tag, self.tag):
            return False
        name = repository.lower()
        if not fnmatch.fnmatchcase(name, self.image.removeprefix("docker.io/")) and (
                not fnmatch.fnmatchcase(name, self.image)):
            return False
        last = self.image.rsplit("/", 1)[-1]
        if "*" not in last:
            return True
        short = name.rsplit("/", 1)[-1]
        if not self.context or "*" not in self.context:
            return False
        folder = self.context.replace("*", short).strip("/").removeprefix("./")
        return any(posixpath.join(folder, f) in paths for f in _BUILD_FILES)


_BUILD_FILES = ("Dockerfile", "Containerfile")


@dataclass(frozen=True)
class CiFacts:
    """What the repository's CI declares about its manifests (see the module's docstring)."""

    rewrites: tuple[Rewrite, ...] = ()
    skipped_by_validation: tuple[ValidationSkip, ...] = ()
    unknown: tuple[Rewrite, ...] = ()  # rewrites whose target is a variable
    read: tuple[str, ...] = ()  # the CI files read (workflows, actions, scripts, Makefiles)
    # rewrites of jobs that commit or propose their changes (an updater, not a build step):
    # the cluster gets what is merged, the repository shows it
    committed: tuple[Rewrite, ...] = ()
    # files a step writes with a kustomize build (``kustomize build DIR >> FILE``): each
    # with the folder built; what the build's inputs get, the file gets
    outputs: tuple[tuple[str, str], ...] = ()
    pushes: tuple[ImagePush, ...] = ()  # images a step builds and pushes
    # the dotted field paths (``keyManager.image.tag``) a job that calls a reusable workflow
    # of another repository names among its inputs, each with the job: what that workflow
    # does with them is not read, but it is given them by name
    named: tuple[tuple[str, Step], ...] = ()

    def built_from(self, path: str) -> str | None:
        """The folder whose kustomize build a CI step writes into ``path``, or None."""
        return next((source for target, source in self.outputs if target == path), None)

    def rewrite_of(self, path: str) -> Rewrite | None:
        """The first rewrite of file ``path`` (not folder rewrites), or None."""
        return next((r for r in self.rewrites if not r.folder and r.matches(path)), None)

    def unapplied_by_ci(self, path: str) -> str | None:
        """Why the repository's own validation leaves out the folder ``path`` (a file: its
        folder), or None. Only folder-wide skips count: a pattern that leaves out some files
        of a folder (``.*\\.sops\\.yaml``: encrypted, still applied) is not one."""
        folder = posixpath.dirname(path) if path.endswith(MANIFEST_SUFFIXES) else path
        folder = posixpath.normpath(folder.strip("/") or ".")
        for skip in self.skipped_by_validation:
            if skip.skips_folder(folder):
                return ("the repository's own validation leaves it out: "
                        f"{skip.describe()}")
        return None


def unapplied_by_ci(model: Any, path: str) -> str | None:
    """Why the repository's CI validation leaves out ``path`` (see
    :meth:`CiFacts.unapplied_by_ci`), for a built model; None when nothing does."""
    facts = model.derived.get("ci") if hasattr(model, "derived") else None
    return facts.unapplied_by_ci(path) if isinstance(facts, CiFacts) else None


def ci_facts(model: Any) -> CiFacts:
    """The model's CI facts (read by the builder; empty for a model built without a tree)."""
    facts = model.derived.get("ci")
    return facts if isinstance(facts, CiFacts) else CiFacts()


# ---------------------------------------------------------------- doubts


def apply_doubts(model: Any, facts: CiFacts, graph: Any) -> None:
    """Objects a CI step rewrites carry a doubt naming the step (``Model.doubts``): those
    of a file it rewrites, those a patch file it rewrites changes, and those a kustomization
    builds when the step rewrites the kustomization (``sed`` on it, ``kustomize edit`` other
    than ``set image``; ``set image`` changes images only: image-digest names it)."""
    if not facts.rewrites:
        return
    paths = set(model.files) | set(getattr(graph, "paths", ()) or ())
    by_file: dict[str, Rewrite] = {}
    for rewrite in facts.rewrites:
        if rewrite.only_images:
            continue  # (images only, as `set image`: image-digest names it)
        if rewrite.folder:
            if rewrite.images:
                continue
            for folder in rewrite.targets:
                for name in ("kustomization.yaml", "kustomization.yml", "Kustomization"):
                    by_file.setdefault(posixpath.join(folder, name) if folder else name,
                                       rewrite)
            continue
        for path in sorted(paths):
            if path not in by_file and rewrite.matches(path):
                by_file[path] = rewrite
    if not by_file:
        return
    read_by: dict[str, Rewrite] = {}  # files a rewritten kustomization's build reads
    rewritten: set[str] = set()  # the rewritten kustomization files
    for path, rewrite in list(by_file.items()):
        folder = posixpath.dirname(path)
        if posixpath.basename(path) in ("kustomization.yaml", "kustomization.yml",
                                        "Kustomization") and folder in graph.by_dir:
            rewritten.add(path)
            for file in sorted(graph.build(folder).files):
                if file not in by_file:
                    read_by.setdefault(file, rewrite)
    clean = _clean_builds(model, graph, rewritten) if read_by else {}
    doubts = model.doubts
    for obj in model.objects:
        found = _rewrite_of(obj, by_file)
        if found is None:
            found = _rewrite_of(obj, read_by)
            if found is not None and any(
                    body == obj.body for body in clean.get(id(obj.doc), ())):
                found = None  # a build no CI step rewrites makes it as it is: a promise holds
        if found is not None:
            doubts.setdefault(id(obj), found.doubt)


def _rewrite_of(obj: Any, rewrites: Mapping[str, Rewrite]) -> Rewrite | None:
    """The rewrite of the file ``obj`` is written in, else of a file that set its fields."""
    found = rewrites.get(obj.file)
    if found is None:
        for source, _ in obj.origins.values():
            found = rewrites.get(source.file.path)
            if found is not None:
                break
    return found


def _clean_builds(model: Any, graph: Any, rewritten: set[str]) -> dict[int, list[Any]]:
    """Without cluster roots (every kustomization root is applied as it is built): by
    document, the bodies the roots whose builds read no rewritten kustomization make of it.
    An object such a build makes too is applied as written there, whatever another build
    a CI step rewrites makes of the same base (kserve's config/runtimes, which `make deploy`
    applies as written and a test overlay rewritten by `sed` also reads). With roots, none:
    the walk decides what a cluster receives, and a doubt stays."""
    if model.derived.get("reach") is not None:
        return {}
    out: dict[int, list[Any]] = {}
    for folder in graph.roots:
        if graph.by_dir[folder].is_component:
            continue
        build = graph.build(folder)
        if build.files & rewritten:
            continue
        for r in build.finished:
            if r.doc is not None:
                out.setdefault(id(r.doc), []).append(r.body)
    return out


# ---------------------------------------------------------------- reading


def read_ci(tree: Tree | None, files: Mapping[str, LoadedFile] | None = None) -> CiFacts:
    """The CI facts of ``tree``: its workflow files (and the actions, scripts and Makefile
    targets they run). ``files``: the tree's parsed YAML files (a workflow parsed already is
    not parsed again)."""
    if tree is None:
        return CiFacts()
    records: dict[str, FileRecord] = {}
    for record in (*tree.files, *tree.texts):
        if is_ci_file(record.path):
            records.setdefault(record.path, record)
    if not records:
        return CiFacts()
    reader = _Reader(records, files or {})
    for path in sorted(records):
        top = _workflow_kind(path)
        if top is not None:
            reader.workflow(path, *top)
        elif path in GITLAB:
            reader.gitlab(path)
        elif path in BUILDKITE:
            reader.buildkite(path)
        elif posixpath.basename(path) in CLOUDBUILD:
            reader.cloudbuild(path)
    for path in sorted(records):  # after the steps that run them: those name them first
        if posixpath.basename(path) in MAKEFILES:
            reader.makefile(path)
    return CiFacts(_once(reader.rewrites), _once(reader.skips), _once(reader.unknown),
                   tuple(sorted(reader.used)), _once(reader.committed),
                   tuple(sorted(set(reader.outputs))), tuple(dict.fromkeys(reader.pushes)),
                   tuple(dict.fromkeys(reader.named)))


# a dotted field path a workflow input may name (``operator.image.tag``): two parts at least,
# each a key a values file could hold
_DOTTED = re.compile(r"(?<![\w./-])[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+(?![\w/-])")
_IMAGE_ACTIONS = ("docker/build-push-action", "docker/metadata-action")
_IMAGE_TOOLS = frozenset({"docker", "podman", "buildah"})  # their push: _Reader._push
# options of ``docker build`` that take the next word as their value
_BUILD_VALUE_OPTIONS = frozenset({
    "-f", "--file", "--build-arg", "--platform", "--target", "--label", "--cache-from",
    "--cache-to", "--secret", "--ssh", "-o", "--output", "--builder", "--network",
    "--build-context", "--iidfile", "--metadata-file", "--progress", "--attest"})
_SHELL_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _listed(value: Any) -> list[str]:
    """An action input's list: YAML items, or lines and commas of a text."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in re.split(r"[\n,]", str(value or "")) if part.strip()]


def _pushed_image(text: str, env: Mapping[str, str]) -> str:
    """The repository an image input names (:func:`_image_name`: its tag left out), each
    ``${{ env.X }}`` the workflow or job sets literally read, every other ``${{ }}`` a
    ``*``, lower case (registries read names so); "" for another option of
    metadata-action's (``enable=...``) or a name whose registry is an expression too."""
    def literal(m: re.Match[str]) -> str:
        value = env.get(m.group(1))
        return value if value is not None and "${{" not in value else m.group(0)

    text = _ENV_EXPRESSION.sub(literal, text)
    name = _EXPRESSION.sub("*", text.split(",", 1)[0]).strip().removeprefix("name=")
    if "=" in name:
        return ""
    name = _image_name(name)
    return name.lower() if name.split("/", 1)[0].strip("*") else ""


_TAG_TEXT = re.compile(r"[\w./:-]+")  # a name or tag written out: no shell or expression


def _pushed_tag(text: str, env: Mapping[str, str]) -> str:
    """The tag an image input names, as :func:`_pushed_image` reads its name (each
    expression a ``*``): ``latest`` where it names none, as docker tags it."""
    def literal(m: re.Match[str]) -> str:  # (a value the shell computes: any tag)
        value = env.get(m.group(1))
        return value if value is not None and _TAG_TEXT.fullmatch(value) else "*"

    text = _ENV_EXPRESSION.sub(literal, text)
    ref = _EXPRESSION.sub("*", text.split(",", 1)[0]).strip().partition("@")[0]
    name = _image_name(ref)
    return ref[len(name) + 1:] if len(ref) > len(name) else "latest"


# a step's shell exporting a variable to the job's later steps (GitHub Actions:
# ``echo NAME=value >> $GITHUB_ENV``), and the assignments before it
_GITHUB_ENV = re.compile(
    r"""^\s*echo\s+(["']?)([A-Za-z_]\w*)=(.*?)\1\s*>>\s*["']?\$\{?GITHUB_ENV\}?["']?\s*$""")
_SET = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(.*?)\s*$")
# ``$(echo $X | tr '[A-Z]' '[a-z]')``: GitHub's starter workflow lower-cases an image name so
_LOWER_CASED = re.compile(r"""^\$\(\s*echo\s+("?)(\S+)\1\s*\|\s*tr\s+(?:'\[A-Z\]'\s+'\[a-z\]'|"""
                          r"""'\[:upper:\]'\s+'\[:lower:\]'|A-Z\s+a-z)\s*\)$""")


def exported_env(text: str, env: Mapping[str, str]) -> dict[str, str]:
    """What a ``run:`` text exports to the job's later steps (``echo NAME=value >>
    $GITHUB_ENV``), each value as the shell expands it from ``env`` and the text's own plain
    assignments before it; a variable whose value a command makes is ``*`` (but a
    lower-casing ``$(echo $X | tr ...)``). kserve's publish workflows set the image they push
    so (``IMAGE_ID=kserve/$IMAGE_NAME``), its ``tags`` naming ``${{ env.IMAGE_ID }}``."""
    known = dict(env)
    out: dict[str, str] = {}

    def expanded(value: str) -> str:
        value = value.strip()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        lowered = _LOWER_CASED.match(value)
        if lowered is not None:
            return expanded(lowered.group(2)).lower()
        if "$(" in value or "`" in value:
            return "*"
        return _SHELL_VARIABLE.sub(lambda m: known.get(m.group(1) or m.group(2), "*"), value)

    for line in text.splitlines():
        export = _GITHUB_ENV.match(line) if "GITHUB_ENV" in line else None
        if export is not None:
            out[export.group(2)] = known[export.group(2)] = expanded(export.group(3))
            continue
        assignment = _SET.match(line) if "=" in line else None
        if assignment is not None:
            known[assignment.group(1)] = expanded(assignment.group(2))
    return out


def _once(found: Iterable[Any]) -> tuple[Any, ...]:
    """``found`` without repeats of a fact written at the same place (a script run by two
    steps: the first step that runs it names it)."""
    seen: set[Any] = set()
    out = []
    for fact in found:
        key = (fact.step.file, fact.step.line, repr(_without_step(fact)))
        if key not in seen:
            seen.add(key)
            out.append(fact)
    return tuple(out)


def _without_step(fact: Any) -> Any:
    return dataclasses.replace(fact, step=Step("", "", 0))


def _workflow_kind(path: str) -> tuple[str, str] | None:
    """(what the file is, the folder of the repository it belongs to) for a workflow file:
    ``.github/workflows/x.yml`` at the top, or below a folder (a repository laid out inside
    the one read: fixtures, vendored projects), whose steps run in that folder."""
    for folder, kind in WORKFLOW_DIRS.items():
        at = path.find(folder)
        if (at == 0 or (at > 0 and path[at - 1] == "/")) and "/" not in path[
                at + len(folder):]:
            return kind, path[:at].rstrip("/")
    return None


@dataclass
class _Block:
    """One shell text being read: who runs it, where, and what it found."""

    step: Step
    cwd: str  # repository-relative ("" the root; UNKNOWN: not known)
    script_dir: str = ""  # the folder of the script file ($0), for cd "$(dirname "$0")"
    root: str = ""  # the folder of the repository the CI file belongs to ($GITHUB_WORKSPACE)
    arrays: dict[str, list[str]] = field(default_factory=dict)  # bash arrays of literals
    # variables set to a folder of the repository (``SRCROOT="$(cd "$(dirname "$0")/.."
    # && pwd)"``, ``ROOT=$(git rev-parse --show-toplevel)``) or to a tool's command
    # (``kust_cmd="kustomize build ..."``): expanded where they are used
    literals: dict[str, str] = field(default_factory=dict)
    stack: list[str] = field(default_factory=list)  # pushd's folders
    finds: list[ValidationSkip] = field(default_factory=list)
    validates: bool = False


class _Reader:
    def __init__(self, records: Mapping[str, FileRecord],
                 files: Mapping[str, LoadedFile]) -> None:
        self.records = records
        self.files = files
        self.rewrites: list[Rewrite] = []
        self.unknown: list[Rewrite] = []
        self.skips: list[ValidationSkip] = []
        self.used: set[str] = set()
        self.budget = MAX_COMMANDS
        self.commits = False  # the job being read commits or proposes its changes
        self.branches = False  # it makes a branch (git checkout -b, git switch -c)
        self.proposes = False  # it opens a pull request (gh pr create, an action)
        self.deploys = False  # the Makefile target being read applies or builds manifests
        self.committed: list[Rewrite] = []
        self.outputs: list[tuple[str, str]] = []  # (file written, folder built)
        self.pushes: list[ImagePush] = []
        self.named: list[tuple[str, Step]] = []  # CiFacts.named
        self._metadata: dict[str, list[str]] = {}  # a job's docker/metadata-action images
        self._env: dict[str, str] = {}  # the workflow's and the job's env, as written
        self._running: set[str] = set()  # the scripts being read (a script runs itself)
        # what a script read once does (run again by another step: not read again)
        self._scripts: dict[tuple[str, str, str], tuple[
            list[Rewrite], list[Rewrite], list[ValidationSkip], tuple[bool, bool], str]] = {}
        self._rules: dict[str, dict[str, tuple[list[str], list[tuple[int, str]]]]] = {}
        self._rule_files: dict[tuple[str, str], str] = {}  # (Makefile, target): its file

    # ------------------------------------------------------------ YAML CI files

    def _yaml(self, path: str) -> Any:
        lf = self.files.get(path)
        if lf is None:
            record = self.records.get(path)
            if record is None:
                return None
            lf = load(record)
        self.used.add(path)
        return lf.documents[0] if lf.documents else None

    def workflow(self, path: str, kind: str, root: str) -> None:
        doc = self._yaml(path)
        value = doc.value if doc is not None else None
        if not isinstance(value, dict) or not isinstance(value.get("jobs"), dict):
            return
        name = posixpath.basename(path) if kind == "workflow" else path
        top_dir = _default_dir(value, root)
        for job_id, job in value["jobs"].items():
            if not isinstance(job, dict):
                continue
            if isinstance(job.get("uses"), str) and isinstance(job.get("with"), dict):
                self._reusable(doc, name, kind, str(job_id), job)
            steps = job.get("steps")
            if not isinstance(steps, list):
                continue
            job_dir = _default_dir(job, root) or top_dir
            mark = self._job()
            self._env = {str(k): str(v) for scope in (value, job) if isinstance(
                scope.get("env"), dict) for k, v in scope["env"].items()}
            self.commits = any(isinstance(step, dict) and isinstance(step.get("uses"), str)
                               and any(a in step["uses"].lower() for a in COMMIT_ACTIONS)
                               for step in steps)
            self.proposes = any(isinstance(step, dict) and "pull-request" in str(
                step.get("uses") or "").lower() for step in steps)
            for n, step in enumerate(steps, 1):
                if not isinstance(step, dict):
                    continue
                label = f"{kind} {name}, job {job_id}, {_step_name(step, n)}"
                at = ("jobs", job_id, "steps", n - 1)
                self._step(doc, at, step, label, job_dir, root, 0)
            self._job_done(mark)

    def _reusable(self, doc: Any, name: str, kind: str, job_id: str,
                  job: Mapping[str, Any]) -> None:
        """A job that calls a reusable workflow (``uses: owner/repo/.github/workflows/
        release.yaml@v1``): the dotted field paths its inputs name (nebari-dev/
        llm-serving-pack's ``tag-paths: keyManager.image.tag ...``, the values its release
        pins; judge round AR: 4 false errors on the ``latest`` left between releases)."""
        line = doc.position(("jobs", job_id, "uses"))[0]
        step = Step(f"{kind} {name}, job {job_id} ({job['uses']})", doc.file.path, line)
        for value in job["with"].values():
            if isinstance(value, str):
                self.named.extend((p, step) for p in _DOTTED.findall(value))

    def _job(self) -> tuple[int, int]:
        self.commits = self.deploys = self.branches = self.proposes = False
        self._metadata = {}
        return len(self.rewrites), len(self.unknown)

    def _job_done(self, mark: tuple[int, int]) -> None:
        """A job's rewrites are a build's only when the job builds or applies manifests
        (``kubectl apply``, ``kustomize build``, ``helm upgrade``, ...; ``kustomize edit``
        is for a build whatever follows): a job that edits files and runs tests or
        formatters leaves no placeholder. A job that commits or proposes what it changed
        (``git commit``/``push``, ``gh pr create``, a create-pull-request or auto-commit
        action) updates the repository: the cluster gets what is merged, so its rewrites
        are no placeholders either, unless it commits them onto a branch it makes and opens
        no pull request: a release branch, whose revision pins what this branch keeps as a
        placeholder (kubeflow/trainer's release job checks out `release-X.Y`, pins each
        overlay's `newTag: latest` with sed and pushes the branch: 17 false errors of judge
        round EM; nebari-dev/llm-serving-pack's, judge round AR)."""
        if self.commits and self.branches and not self.proposes:
            self.commits = self.deploys = self.branches = False
            return  # (its rewrites stay: placeholders here)
        if not self.deploys:
            self.rewrites[mark[0]:] = [r for r in self.rewrites[mark[0]:] if r.folder]
            self.unknown[mark[1]:] = [r for r in self.unknown[mark[1]:] if r.folder]
        if self.commits:
            self.committed += self.rewrites[mark[0]:] + self.unknown[mark[1]:]
            del self.rewrites[mark[0]:], self.unknown[mark[1]:]
        self.commits = self.deploys = False

    def _step(self, doc: Any, at: tuple[Any, ...], step: Mapping[str, Any], label: str,
              default_dir: str, root: str, depth: int) -> None:
        run, uses = step.get("run"), step.get("uses")
        folder = step.get("working-directory")
        cwd = _folder(str(folder), root) if isinstance(folder, str) else (default_dir or root)
        if isinstance(run, str):
            self._shell_at(run, _Block(Step(label, doc.file.path, 0), cwd, root=root),
                           doc, at + ("run",), depth)
            if "GITHUB_ENV" in run:  # (what the job's later steps read as ${{ env.X }})
                self._env.update(exported_env(run, self._env))
        elif isinstance(uses, str) and uses.lower().startswith(_IMAGE_ACTIONS):
            self._image_action(doc, at, step, uses.lower(), label)
        elif isinstance(uses, str) and uses.startswith("./") and depth < MAX_DEPTH:
            used = _target(root, uses)
            if used is not None:
                self.action(used, label, root, depth + 1)

    def _image_action(self, doc: Any, at: tuple[Any, ...], step: Mapping[str, Any],
                      uses: str, label: str) -> None:
        """docker/metadata-action (the images a later step's tags name: remembered by the
        step's id) and docker/build-push-action with ``push: true`` (an :class:`ImagePush`
        per image its tags name)."""
        given = step.get("with")
        inputs: Mapping[str, Any] = given if isinstance(given, dict) else {}
        if uses.startswith("docker/metadata-action"):
            images = [_pushed_image(i, self._env) for i in _listed(inputs.get("images"))]
            self._metadata[str(step.get("id") or "")] = [i for i in images if i]
            return
        if str(inputs.get("push")).lower() not in ("true", "yes") and "${{" not in str(
                inputs.get("push")):
            return  # builds without pushing (a test build, a load into the runner)
        tags = str(inputs.get("tags") or "")
        pushed: list[tuple[str, str | None]] = [
            (_pushed_image(t, self._env), _pushed_tag(t, self._env))
            for t in _listed(tags) if "steps." not in t]
        for ref in re.findall(r"steps\.([\w-]+)\.outputs\.tags", tags):
            pushed += [(image, None) for image in self._metadata.get(ref, [])]
        context = _EXPRESSION.sub("*", str(inputs.get("context") or "")).strip()
        where = Step(label, doc.file.path, doc.position(at)[0])
        self.pushes.extend(ImagePush(where, image, context, tag) for image, tag in pushed
                           if image)

    def action(self, folder: str, used_by: str, root: str, depth: int) -> None:
        for name in ("action.yml", "action.yaml"):
            path = posixpath.join(folder, name) if folder else name
            if path in self.records:
                break
        else:
            return
        doc = self._yaml(path)
        value = doc.value if doc is not None else None
        runs = value.get("runs") if isinstance(value, dict) else None
        steps = runs.get("steps") if isinstance(runs, dict) else None
        if not isinstance(steps, list):
            return
        for n, step in enumerate(steps, 1):
            if isinstance(step, dict):
                label = f"action {folder or '.'}, {_step_name(step, n)} (used by {used_by})"
                self._step(doc, ("runs", "steps", n - 1), step, label, "", root, depth)

    def gitlab(self, path: str) -> None:
        doc = self._yaml(path)
        value = doc.value if doc is not None else None
        if not isinstance(value, dict):
            return
        for job, body in value.items():
            if not isinstance(body, dict) or str(job).startswith("."):
                continue
            block = _Block(Step(f"GitLab CI job {job}", path, 1), "")
            mark = self._job()
            for key in ("before_script", "script", "after_script"):
                lines = body.get(key)
                lines = [lines] if isinstance(lines, str) else lines
                if not isinstance(lines, list):
                    continue
                for i, text in enumerate(lines):
                    if isinstance(text, str):  # one shell: a cd holds for the lines after
                        at = (job, key, i) if isinstance(body.get(key), list) else (job, key)
                        block.step = Step(block.step.label, path, 0)
                        self._shell_at(text, block, doc, at)
            self._job_done(mark)

    def buildkite(self, path: str) -> None:
        """A Buildkite pipeline's command steps (``command``/``commands``, a text or a list;
        a ``group``'s ``steps`` too), each run from the checkout's top level."""
        doc = self._yaml(path)
        value = doc.value if doc is not None else None
        steps = value.get("steps") if isinstance(value, dict) else value
        pending: list[tuple[tuple[Any, ...], Any]] = [(("steps", n), step) for n, step in enumerate(
            steps if isinstance(steps, list) else ())] if isinstance(value, dict) else [
            ((n,), step) for n, step in enumerate(steps if isinstance(steps, list) else ())]
        mark = self._job()
        while pending:
            at, step = pending.pop(0)
            if not isinstance(step, dict):
                continue
            inner = step.get("steps")
            if isinstance(inner, list):  # a group step
                pending[:0] = [((*at, "steps", n), s) for n, s in enumerate(inner)]
                continue
            name = step.get("label") or step.get("key") or step.get("name")
            label = f"Buildkite {path}, " + (f"step '{name}'" if isinstance(name, str) and (
                name.strip()) else f"step {at[-1]}")
            for key in ("command", "commands"):
                lines = step.get(key)
                listed = isinstance(lines, list)
                texts: list[Any] = lines if isinstance(lines, list) else [lines]
                block = _Block(Step(label, path, 0), "")  # (a step's commands: one shell)
                for i, text in enumerate(texts):
                    if isinstance(text, str):
                        self._shell_at(text, block, doc, (*at, key, i) if listed else (*at, key))
        self._job_done(mark)

    def cloudbuild(self, path: str) -> None:
        doc = self._yaml(path)
        value = doc.value if doc is not None else None
        steps = value.get("steps") if isinstance(value, dict) else None
        if not isinstance(steps, list):
            return
        folder = posixpath.dirname(path)
        mark = self._job()
        for n, step in enumerate(steps, 1):
            if not isinstance(step, dict):
                continue
            name = step.get("id") if isinstance(step.get("id"), str) else None
            label = f"Cloud Build {path}, " + (f"step '{name}'" if name else f"step {n}")
            cwd = _folder(str(step.get("dir") or "."), folder)
            text = _cloudbuild_script(step)
            if text is not None:
                self._shell_at(text, _Block(Step(label, path, 0), cwd), doc, ("steps", n - 1))
        self._job_done(mark)

    # ------------------------------------------------------------ shell

    def _shell_at(self, text: str, block: _Block, doc: Any, at: tuple[Any, ...],
                  depth: int = 0) -> None:
        """``shell`` for a step of a YAML CI file (``doc``, the step's text at path ``at``)
        whose line is looked up only when the step is found to do something (most steps
        rewrite and skip nothing, and a line costs composing the file's positions): the facts
        it gave then take the step with its line. ``block.step`` is a stand-in until then
        (line 0)."""
        step = block.step
        facts: tuple[list[Any], ...] = (self.rewrites, self.unknown, self.skips, self.pushes)
        starts = [len(found) for found in facts]
        self.shell(text, block, depth)
        new = list(zip(facts, starts, strict=True))
        if any(f.step is step for found, start in new for f in found[start:]):
            block.step = located = dataclasses.replace(step, line=doc.position(at)[0])
            for found, start in new:
                found[start:] = [dataclasses.replace(f, step=located) if f.step is step else f
                                 for f in found[start:]]

    def shell(self, text: str, block: _Block, depth: int, per_line: bool = False) -> None:
        """Read the commands of ``text`` (a ``run:`` block, a script, a recipe line);
        ``per_line``: ``text`` is a whole file, each command is where its line is (else
        where the block's step is)."""
        for line, pipeline in _looped(_pipelines(text, block.script_dir, block.arrays,
                                                 block.literals)):
            self.budget -= len(pipeline)
            if self.budget < 0:
                return
            here = Step(block.step.label, block.step.file, line + 1) if per_line else (
                block.step)
            if pipeline[0].argv == ["(subshell)"]:  # $(...): a cd there stays there
                cwd = block.cwd
                for simple in pipeline[1:]:
                    self.command(simple.argv, simple.writes, block, here, depth)
                block.cwd = cwd
                pipeline = pipeline[1:]
            else:
                for simple in pipeline:
                    self.command(simple.argv, simple.writes, block, here, depth)
            if len(pipeline) > 1:
                self._applied(pipeline, block, here)
        self._close(block)

    def _applied(self, pipeline: Sequence[_Simple], block: _Block, step: Step) -> None:
        """``sed EXPR FILE | kubectl apply -f -`` (``envsubst < FILE``, ``yq EXPR FILE``,
        ``cat FILE | envsubst``): the cluster gets FILE as the pipeline rewrites it."""
        last = _unwrap(pipeline[-1].argv)
        if not _applies_stdin(last):
            return
        files: list[tuple[str, str]] = []
        rewrites = False
        for simple in pipeline[:-1]:
            argv = _unwrap(simple.argv)
            name = posixpath.basename(argv[0]) if argv else ""
            if name in ("sed", "gsed", "yq", "envsubst"):
                rewrites = True
                files += [(name, f) for f in simple.reads]
                if name != "envsubst":
                    files += [(name, f) for f in _operands(argv)[1:]]
            elif name == "cat":
                files += [(name, f) for f in argv[1:] if not f.startswith("-")]
        if not rewrites:
            return
        names = [posixpath.basename(_unwrap(s.argv)[0]) for s in pipeline[:-1]
                 if _unwrap(s.argv)]
        tools = " | ".join([*names, f"{posixpath.basename(last[0])} {last[1]} -f -"])
        for _, target in files:
            self._write(block, step, tools, target, manifests_only=True)

    def _close(self, block: _Block) -> None:
        if block.validates:
            self.skips.extend(block.finds)
        block.finds.clear()

    def command(self, argv: list[str], writes: list[str], block: _Block, step: Step,
                depth: int) -> None:
        argv = _unwrap(argv)
        if not argv:
            return
        name = argv[0].rpartition("/")[2]
        tool = _TOOL_VARIABLE.match(name) if name.startswith("$") else None
        if tool is not None and tool.group(1).lower() in TOOLS:
            name = tool.group(1).lower()  # KUSTOMIZE ?= $(LOCALBIN)/kustomize
            argv = [name, *argv[1:]]
        if _deploys(name, argv):
            self.deploys = True
        if name in ("cd", "pushd"):
            words = [a for a in argv[1:] if a == "-" or not a.startswith("-")]
            if name == "pushd":
                block.stack.append(block.cwd)
            block.cwd = _moved(block.cwd, words[0] if words else ROOT, block.root)
            return
        if name == "popd":
            block.cwd = block.stack.pop() if block.stack else UNKNOWN
            return
        if name in ("sed", "gsed"):
            self._sed(argv, block, step)
        elif name == "perl":
            self._perl(argv, block, step)
        elif name == "yq":
            self._yq(argv, block, step)
        elif name == "kustomize":
            self._kustomize(argv, block, step)
        elif name == "git" and {"commit", "push"} & set(argv[1:4]) or name == "gh" and (
                argv[1:3] == ["pr", "create"]):
            self.commits = True
            self.proposes = self.proposes or name == "gh"
        elif name == "git" and (argv[1:2] == ["checkout"] and {"-b", "-B"} & set(argv[2:]) or (
                argv[1:2] == ["switch"] and {"-c", "-C", "--create", "--force-create"}
                & set(argv[2:]))):
            self.branches = True
        elif name in VALIDATORS:
            block.validates = True
            self._validator(name, argv, block, step)
        elif name == "flux" and "build" in argv[1:3]:
            block.validates = True
            self._flux(argv, block, step)
        elif name == "find":
            self._find(argv, block, step)
        elif name in ("make", "gmake"):
            self._make(argv, block, step, depth)
        elif name in ("kubectl", "oc") and len(argv) > 1 and argv[1] == "kustomize":
            block.validates = True
        elif name in _IMAGE_TOOLS:
            self._push(argv, step)
        elif name in ("bash", "sh", "zsh", "dash", "source", ".") or name.endswith(
                (".sh", ".bash")):
            self._script(argv, block, step, depth)
        if name == "envsubst":  # other writes are outputs (a build, a render), not rewrites
            for target in writes:
                self._write(block, step, "envsubst >", target)
        elif name == "kustomize" or name in ("kubectl", "oc") and argv[1:2] == ["kustomize"]:
            self._output(argv, writes, block)

    def _push(self, argv: list[str], step: Step) -> None:
        """``docker push IMAGE`` (``docker image push``, podman's and buildah's ``push``) and
        ``docker buildx build --push -t IMAGE CONTEXT``: an :class:`ImagePush` per image,
        the job's env read as the shell reads it (``$IMAGE``), other variables a ``*``."""
        words = argv[1:]
        if words[:2] == ["image", "push"]:
            words = words[1:]
        if words[:1] == ["buildx"]:
            words = words[1:]
        if not words:
            return
        refs: list[str] = []
        context = ""
        tagged = words[0] != "push"  # (``docker push NAME``: its tags, which are not said)
        if words[0] == "push":
            refs = [w for w in words[1:] if not w.startswith("-")][:1]
        elif words[0] == "build" and any(w == "--push" or w.startswith("--output=type=registry")
                                         for w in words[1:]):
            rest = iter(words[1:])
            positional = []
            for word in rest:
                option, eq, value = word.partition("=")
                if option in ("-t", "--tag"):
                    refs.append(value if eq else next(rest, ""))
                elif option.startswith("-t") and len(option) > 2 and not eq:
                    refs.append(option[2:])
                elif option in _BUILD_VALUE_OPTIONS and not eq:
                    next(rest, "")
                elif not word.startswith("-"):
                    positional.append(word)
            context = _SHELL_VARIABLE.sub("*", positional[0]) if positional else ""
        for ref in refs:
            ref = _SHELL_VARIABLE.sub(lambda m: self._env.get(m.group(1) or m.group(2), "*"),
                                      ref)
            image = _pushed_image(ref, self._env)
            if image:
                tag = _pushed_tag(ref, self._env)
                self.pushes.append(ImagePush(step, image, context, tag if tagged or (
                    tag != "latest") else None))

    def _output(self, argv: list[str], writes: list[str], block: _Block) -> None:
        """``kustomize build [flags] DIR > FILE`` (``-o FILE``; ``kubectl kustomize``): FILE is
        what the build of DIR makes."""
        words: list[str] = []
        args = iter(argv[1:])
        for arg in args:
            if arg in _BUILD_VALUE_FLAGS:
                value = next(args, None)
                if arg in ("-o", "--output") and value is not None:
                    writes = [*writes, value]
            elif arg.startswith(("-o=", "--output=")):
                writes = [*writes, arg.partition("=")[2]]
            elif not arg.startswith("-"):
                words.append(arg)
        words = words[1:] if words[:1] == ["kustomize"] else words
        if argv[0].rpartition("/")[2] == "kustomize":
            if words[:1] != ["build"]:
                return
            words = words[1:]
        if len(words) > 1:
            return
        source = _target(block.cwd, words[0] if words else ".", block.root)
        for target in writes:
            path = _target(block.cwd, target, block.root)
            if source is not None and path is not None and path.endswith(MANIFEST_SUFFIXES):
                self.outputs.append((path, source))

    # ------------------------------------------------------------ rewrites

    def _write(self, block: _Block, step: Step, tool: str, target: str, *,
               manifests_only: bool = False, folder: bool = False,
               images: tuple[str | None, ...] = (),
               values: tuple[str | None, ...] = (), only_images: bool = False) -> None:
        path = _target(block.cwd, target, block.root)
        if path is None:
            outside = target.startswith(("/", "~"))
            if not outside and (_variable(target) or block.cwd == UNKNOWN) and (
                    not manifests_only or target.endswith(MANIFEST_SUFFIXES) or folder):
                self.unknown.append(Rewrite(step, tool, (), folder, images, target, values,
                                            only_images))
            return
        if not folder and not _could_be_manifest(path):
            return  # pyproject.toml, coverage.out: no manifest
        self.rewrites.append(Rewrite(step, tool, (path,), folder, images, target, values,
                                     only_images))

    def _sed(self, argv: list[str], block: _Block, step: Step) -> None:
        in_place, script_given = False, False
        operands: list[str] = []
        args = iter(argv[1:])
        for arg in args:
            if arg == "--":
                operands.extend(args)
                break
            if arg.startswith("--"):
                if arg.startswith("--in-place"):
                    in_place = True
                elif arg in ("--expression", "--file", "--line-length"):
                    script_given = script_given or arg != "--line-length"
                    next(args, None)
                elif arg.startswith(("--expression=", "--file=")):
                    script_given = True
                continue
            if arg.startswith("-") and len(arg) > 1:
                letters = arg[1:]
                for i, letter in enumerate(letters):
                    if letter == "i":
                        in_place = True
                        if i == len(letters) - 1 and argv[0] != "gsed":
                            # BSD: -i takes a suffix argument ('' in sed -i '' ...)
                            peek = next(args, None)
                            if peek is not None and peek not in ("",) and not (
                                    peek.startswith(".") and "/" not in peek
                                    and not peek.endswith(MANIFEST_SUFFIXES)):
                                if peek.startswith("-"):
                                    script_given = script_given or peek in ("-e", "-f")
                                    if peek in ("-e", "-f"):
                                        next(args, None)
                                else:
                                    operands.append(peek)
                        break
                    if letter in ("e", "f", "l"):
                        script_given = script_given or letter != "l"
                        if i == len(letters) - 1:
                            next(args, None)
                        break
                continue
            operands.append(arg)
        if not in_place:
            return
        files = operands if script_given else operands[1:]
        only_images = not script_given and bool(operands) and _images_only(operands[0])
        for target in files:
            self._write(block, step, "sed -i", target, only_images=only_images)

    def _perl(self, argv: list[str], block: _Block, step: Step) -> None:
        """``perl -pi -e 's/.../.../' FILE`` (``-i`` in any cluster of switches, with or
        without a backup suffix): the files after the script are rewritten in place."""
        in_place, operands = False, []
        args = iter(argv[1:])
        for arg in args:
            if arg.startswith("-") and len(arg) > 1 and not arg.startswith("--"):
                letters = arg[1:]
                in_place = in_place or "i" in letters.split("e", 1)[0]
                if letters.endswith(("e", "E")):
                    next(args, None)  # the script
                continue
            operands.append(arg)
        for target in operands if in_place else ():
            self._write(block, step, "perl -i", target)

    def _yq(self, argv: list[str], block: _Block, step: Step) -> None:
        in_place = False
        operands: list[str] = []
        takes_value = {"-o", "--output-format", "-p", "--input-format", "-I", "--indent",
                       "--from-file", "--front-matter", "--expression", "--split-exp", "-s",
                       "--xml-attribute-prefix", "--xml-content-name"}
        from_file = False
        args = iter(argv[1:])
        for arg in args:
            if arg in ("-i", "--inplace") or (arg.startswith("-") and not arg.startswith("--")
                                              and "i" in arg[1:] and arg[1:].isalpha()):
                in_place = True
            elif arg in takes_value:
                from_file = from_file or arg in ("--from-file", "--expression")
                next(args, None)
            elif arg.startswith("-"):
                from_file = from_file or arg.startswith(("--from-file=", "--expression="))
            else:
                operands.append(arg)
        if not in_place or not operands:
            return
        if operands[0] in ("w", "write", "d", "delete", "m", "merge", "p", "prefix", "n", "new"):
            files = operands[1:2]  # yq v3: the file comes first
        else:
            if operands[0] in ("e", "eval", "ea", "eval-all"):
                operands = operands[1:]
            files = operands if from_file or len(operands) == 1 and operands[0].endswith(
                MANIFEST_SUFFIXES) else operands[1:]
        for target in files:
            self._write(block, step, "yq -i", target)

    def _kustomize(self, argv: list[str], block: _Block, step: Step) -> None:
        words = [a for a in argv[1:] if not a.startswith("-")]
        if words[:1] == ["build"]:
            block.validates = True
            return
        if words[:1] != ["edit"]:
            return
        if words[1:3] == ["set", "image"]:
            names: list[str | None] = []
            values: list[str | None] = []
            for arg in words[3:]:
                name = arg.partition("=")[0] if "=" in arg else _image_name(arg)
                names.append(None if _variable(name) or not name else name)
                value = arg.partition("=")[2] if "=" in arg else arg
                # a tag or digest written literally is what the build gets (a new name alone
                # keeps the entry's tag, which the step does not say)
                values.append(None if _variable(value) or _image_name(value) == value
                              else value)
            self._write(block, step, "kustomize edit set image", ".", folder=True,
                        images=tuple(names) or (None,), values=tuple(values) or (None,))
        else:
            self._write(block, step, "kustomize edit " + " ".join(words[1:3]), ".",
                        folder=True)

    # ------------------------------------------------------------ validation skips

    def _validator(self, name: str, argv: list[str], block: _Block, step: Step) -> None:
        flags = ({"-ignore-filename-pattern", "--ignore-filename-pattern"} if name ==
                 "kubeconform" else {"--ignored-filename-patterns", "-i"})
        args = iter(argv[1:])
        for arg in args:
            key, eq, value = arg.partition("=")
            if key not in flags:
                continue
            pattern = value if eq else next(args, None)
            if pattern is None or _variable(pattern) or block.cwd == UNKNOWN:
                continue
            patterns = pattern.split(",") if name == "kubeval" else [pattern]
            tool = f"{name} {key}"
            self.skips.extend(ValidationSkip(step, tool, p, "regex", block.cwd)
                              for p in patterns if p)

    def _flux(self, argv: list[str], block: _Block, step: Step) -> None:
        base, ignores = None, []
        args = iter(argv[1:])
        for arg in args:
            key, eq, value = arg.partition("=")
            if key == "--path":
                base = value if eq else next(args, None)
            elif key == "--ignore-paths":
                ignores.append(value if eq else next(args, None))
        if base is None or _variable(base) or block.cwd == UNKNOWN:
            return
        folder = _target(block.cwd, base, block.root)
        if folder is None:
            return
        for text in ignores:
            for pattern in (text or "").split(","):
                if pattern and not _variable(pattern):
                    self.skips.append(ValidationSkip(
                        step, "flux build --ignore-paths", pattern.strip(), "gitignore", folder))

    def _find(self, argv: list[str], block: _Block, step: Step) -> None:
        if block.cwd == UNKNOWN:
            return
        starts: list[str] = []
        i = 1
        while i < len(argv) and not argv[i].startswith(("-", "!", "(")):
            starts.append(argv[i])
            i += 1
        if any(_variable(s) for s in starts):
            return
        rest = argv[i:]
        shallow = any(rest[j:j + 2] == ["-maxdepth", "1"] for j in range(len(rest)))
        for j, arg in enumerate(rest):
            if arg == "-name" and shallow and j > 0 and rest[j - 1] in ("-not", "!") and (
                    j + 1 < len(rest)) and not _variable(rest[j + 1]):
                # one level only: a folder left out by its name is left out with all it holds
                for start in starts or (".",):
                    block.finds.append(ValidationSkip(
                        step, "find -maxdepth 1 ! -name", posixpath.join(start, rest[j + 1]),
                        "find-prune", block.cwd, (start,)))
            if arg in ("-path", "-wholename", "-ipath") and j + 1 < len(rest):
                pattern = rest[j + 1]
                negated = j > 0 and rest[j - 1] in ("-not", "!")
                pruned = j + 2 < len(rest) and rest[j + 2] == "-prune"
                if (negated or pruned) and not _variable(pattern):
                    how = "-not -path" if negated else "-path ... -prune"
                    block.finds.append(ValidationSkip(
                        step, f"find {how}", pattern, "find" if negated else "find-prune",
                        block.cwd, tuple(starts) or (".",)))

    # ------------------------------------------------------------ scripts and make

    def _script(self, argv: list[str], block: _Block, step: Step, depth: int) -> None:
        name = posixpath.basename(argv[0])
        if name in ("bash", "sh", "zsh", "dash"):
            args = argv[1:]
            while args and args[0].startswith("-") and args[0] != "-c":
                args = args[1:]
            if args[:1] == ["-c"] and len(args) > 1:
                if depth < MAX_DEPTH:
                    inner = _Block(step, block.cwd, block.script_dir, root=block.root)
                    self.shell(args[1], inner, depth + 1)
                return
            script = args[0] if args else None
        elif name in ("source", "."):
            script = argv[1] if len(argv) > 1 else None
        else:
            script = argv[0]
        if script is None or depth >= MAX_DEPTH:
            return
        path = _target(block.cwd, script, block.root)
        if path is None or path not in self.records:
            return
        if path in self._running:  # a script that runs itself: read once
            return
        key = (path, block.cwd, block.root)
        done = self._scripts.get(key)
        if done is not None:  # run again (by another step): what it does is known
            rewrites, unknown, skips, (commits, deploys), cwd = done
            self.rewrites += rewrites
            self.unknown += unknown
            self.skips += skips
            self.commits = self.commits or commits
            self.deploys = self.deploys or deploys
            if name in ("source", "."):
                block.cwd = cwd
            return
        self.used.add(path)
        text = self.records[path].data.decode("utf-8", "replace")
        label = f"script {path} (run by {step.label})"
        inner = _Block(Step(label, path, 1), block.cwd, posixpath.dirname(path), root=block.root)
        marks = len(self.rewrites), len(self.unknown), len(self.skips)
        (commits, self.commits), (deploys, self.deploys) = (self.commits, False), (
            self.deploys, False)
        self._running.add(path)
        try:
            self.shell(text, inner, depth + 1, per_line=True)
        finally:
            self._running.discard(path)
        self._scripts[key] = (self.rewrites[marks[0]:], self.unknown[marks[1]:],
                              self.skips[marks[2]:], (self.commits, self.deploys), inner.cwd)
        self.commits = self.commits or commits
        self.deploys = self.deploys or deploys
        if name in ("source", "."):
            block.cwd = inner.cwd

    def _make_rules(self, path: str) -> dict[str, tuple[list[str], list[tuple[int, str]]]]:
        """The rules of the Makefile at ``path`` and of those it includes (``include
        ../../Makefile.common``: a file make reads in place, its recipes run in the
        including Makefile's folder; a target the Makefile writes itself is its own)."""
        rules = self._rules.get(path)
        if rules is None:
            text = self.records[path].data.decode("utf-8", "replace")
            rules = self._rules[path] = _make_rules(text)
            for written in _make_includes(text):
                included = _target(posixpath.dirname(path), written, "")
                if included is None or included == path or included not in self.records:
                    continue
                self.used.add(included)
                inner = _make_rules(self.records[included].data.decode("utf-8", "replace"))
                for goal, rule in inner.items():
                    if goal not in rules:
                        rules[goal] = rule
                        self._rule_files[(path, goal)] = included
        return rules

    def _rule_file(self, path: str, goal: str) -> str:
        """The file that writes ``goal`` of the Makefile at ``path`` (one it includes)."""
        return self._rule_files.get((path, goal), path)

    def makefile(self, path: str) -> None:
        """Every target of a Makefile is the repository's own build (``make deploy`` is how
        it deploys, whether a workflow runs it or a person does): each is read as a job of
        its own, in the Makefile's folder."""
        rules = self._make_rules(path)
        folder = posixpath.dirname(path)
        for goal, (_, recipe) in rules.items():
            if goal.startswith(".") or not recipe:
                continue
            mark = self._job()
            written = self._rule_file(path, goal)
            label = f"{written} target '{goal}'"
            for line, text in recipe:
                self.shell(text, _Block(Step(label, written, line), folder, folder, root=folder),
                           1)
            self._job_done(mark)

    def _make(self, argv: list[str], block: _Block, step: Step, depth: int) -> None:
        if depth >= MAX_DEPTH or block.cwd == UNKNOWN:
            return
        folder, makefile, goals = block.cwd, None, []
        args = iter(argv[1:])
        for arg in args:
            if arg in ("-C", "--directory"):
                value = next(args, None)
                moved = _target(folder, value, block.root) if value is not None else None
                if moved is None:
                    return
                folder = moved
            elif arg.startswith("-C") and len(arg) > 2:
                moved = _target(folder, arg[2:], block.root)
                if moved is None:
                    return
                folder = moved
            elif arg in ("-f", "--file", "--makefile"):
                makefile = next(args, None)
            elif arg.startswith("-") or "=" in arg:
                continue
            else:
                goals.append(arg)
        if makefile is not None:
            path = _target(folder, makefile, block.root)
        else:
            path = next((p for p in (posixpath.join(folder, n) if folder else n
                                     for n in MAKEFILES) if p in self.records), None)
        if path is None or path not in self.records:
            return
        self.used.add(path)
        rules = self._make_rules(path)
        if not goals:
            goals = [next((t for t in rules if not t.startswith(".")), "")]
        done: set[str] = set()

        def run(goal: str, level: int) -> None:
            if goal in done or goal not in rules or level > MAX_DEPTH:
                return
            done.add(goal)
            prereqs, recipe = rules[goal]
            for prereq in prereqs:
                run(prereq, level + 1)
            written = self._rule_file(path, goal)
            label = f"{written} target '{goal}' (run by {step.label})"
            for line, text in recipe:
                # each recipe line runs in a shell of its own, in the Makefile's folder
                inner = _Block(Step(label, written, line), folder, folder, root=block.root)
                self.shell(text, inner, depth + 1)

        for goal in goals:
            if goal:
                run(goal, 0)


# ---------------------------------------------------------------- shell text


_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", ";;", "|&", "{", "}"})
_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>"})
_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "time",
                       "exec", "command", "builtin", "nohup", "done", "fi", "esac"})
_SCRIPT_DIR = re.compile(
    r"""\$\(\s*dirname\s+["']?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)["']?\s*\)"""
    r"""|\$\{0%/\*\}""")
_TOPLEVEL = re.compile(
    r"""\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|\$\{\{\s*github\.workspace\s*\}\}"""
    r"""|\$\{?GITHUB_WORKSPACE\}?|\$\{?CI_PROJECT_DIR\}?""")
_EXPRESSION = re.compile(r"\$\{\{.*?\}\}")  # a workflow expression: a value not known here
_ENV_EXPRESSION = re.compile(r"\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")  # ${{ env.X }}
# NAME="$(cd "<folder>" && pwd)" (the repository-root idiom) or NAME=<root>, once the script
# folder and the top level are written as TREE and ROOT: NAME names that folder from then on
_FOLDER_VARIABLE = re.compile(
    r"""^\s*(?:export\s+|readonly\s+|local\s+)?([A-Za-z_]\w*)=["']?(?:\$\(\s*(?:CDPATH=\S*\s+)?"""
    r"""cd\s+(?:--\s+)?["']?((?:\x00tree\x00|\x00root\x00)[^"'\s)]*)["']?\s*(?:&&|;)\s*"""
    r"""pwd(?:\s+-[PL])?\s*\)|((?:\x00tree\x00|\x00root\x00)[^"'\s)]*))["']?\s*$""")
# the flags of ``kustomize build`` that take a value (kustomize v5's ``build`` command)
_BUILD_VALUE_FLAGS = frozenset({"--load-restrictor", "--load_restrictor", "-o", "--output",
                                "--helm-command", "--mount", "--network-name", "-e", "--env",
                                "--reorder", "--helm-api-versions", "--helm-kube-version"})
_COMMAND_VARIABLE = re.compile(
    r"""^\s*(?:export\s+|readonly\s+|local\s+)?([A-Za-z_]\w*)=(["'])((?:kustomize|kubectl|"""
    r"""oc|helm|yq|sed|envsubst|flux)(?:\s[^"'$`\\]*)?)\2\s*$""")
_LITERAL_USE = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)\b")
_TOOL_VARIABLE = re.compile(r"^\$\{?([A-Za-z_]\w*)\}?$")  # $(KUSTOMIZE) edit ...: the tool
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][\w-]*)\1")


def _heredoc(line: str) -> re.Match[str] | None:
    """The here-document operator of ``line`` (``<<EOF``, ``<<-'EOF'``): outside quotes,
    not a here-string (``<<<``) and not text (``echo "<<<< GENERATING"`` is none: its
    lines after it are commands)."""
    quote = ""
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"':
                i += 1
        elif c in "'\"":
            quote = c
        elif c == "\\":
            i += 1
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return None  # (a comment)
        elif line.startswith("<<", i):
            if line.startswith("<<<", i):
                i += 3
                continue
            return _HEREDOC.match(line, i)
        i += 1
    return None


@dataclass
class _Simple:
    """One simple command: its words, the files it writes (``>``) and reads (``<``)."""

    argv: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)


_ARRAY = re.compile(r"^\s*(?:local\s+|declare\s+-a\s+)?([A-Za-z_]\w*)=\((.*)$")
_EXPANDED = re.compile(r"^\$\{([A-Za-z_]\w*)\[[@*]\]\}$")


def _pipelines(text: str, script_dir: str, arrays: dict[str, list[str]] | None = None,
               literals: dict[str, str] | None = None) -> Iterator[tuple[int, list[_Simple]]]:
    """(line within ``text``, its simple commands joined by ``|``) of each pipeline.
    ``arrays``: the script's literal arrays (``flags=("-strict" "-ignore-filename-pattern"
    "x")``, on one line or several), filled here and expanded where ``"${flags[@]}"`` is."""
    arrays = {} if arrays is None else arrays
    literals = {} if literals is None else literals
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start = i
        line, i = _logical(lines, i)
        if len(line) > MAX_LINE:
            continue
        array = _ARRAY.match(line) if "=(" in line else None
        if array is not None:
            parts = [array.group(2)]
            while not _closes(parts[-1]) and i < len(lines) and len(parts) < 1000:
                parts.append(lines[i])
                i += 1
            import shlex

            try:
                arrays[array.group(1)] = shlex.split(" ".join(parts).rsplit(")", 1)[0],
                                                     comments=True)
            except ValueError:
                arrays.pop(array.group(1), None)
            continue
        heredoc = _heredoc(line) if "<<" in line else None
        if heredoc is not None:  # the document's lines are text, not commands
            end = heredoc.group(2)
            while i < len(lines) and lines[i].strip() != end:
                i += 1
            i += 1
        if "$" in line:  # what each of the three patterns starts with
            line = _SCRIPT_DIR.sub(lambda _: TREE + "/" + script_dir, line)
            line = _EXPRESSION.sub("${EXPRESSION}", _TOPLEVEL.sub(ROOT, line))
            if literals:
                line = _LITERAL_USE.sub(lambda m: literals.get(m.group(1) or m.group(2),
                                                               m.group(0)), line)
            named = _FOLDER_VARIABLE.match(line) if "=" in line else None
            if named is not None:
                literals[named.group(1)] = posixpath.normpath(named.group(2) or named.group(3))
                continue
        command = _COMMAND_VARIABLE.match(line) if "=" in line else None
        if command is not None:  # kust_cmd="kustomize build ...": ${kust_cmd} runs it
            literals[command.group(1)] = command.group(3)
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        line, inner = _substitutions(line)
        for text in inner:  # $(find ... -not -path ...) feeding a loop: read as well
            for _, nested in _pipelines(text, script_dir, arrays):
                yield start, [_Simple(["(subshell)"]), *nested]
        tokens = _tokens(line)
        if tokens is None:
            continue
        pipeline: list[_Simple] = []
        current = _Simple()
        k = 0
        while k < len(tokens):
            token = tokens[k]
            if token in _REDIRECTS or token == "<":
                if k + 1 < len(tokens):
                    (current.reads if token == "<" else current.writes).append(tokens[k + 1])
                k += 2
                continue
            if token in ("<<", "<<-", "<<<", ">&", "<&"):
                k += 2
                continue
            if token in _OPERATORS or (token and _PUNCTUATION_SET.issuperset(token)):
                if current.argv or current.writes:
                    pipeline.append(current)
                current = _Simple()
                if token not in ("|", "|&") and pipeline:
                    yield start, pipeline
                    pipeline = []
                k += 1
                continue
            expanded = _EXPANDED.match(token) if arrays and token.startswith("${") else None
            if expanded is not None and expanded.group(1) in arrays:
                current.argv.extend(arrays[expanded.group(1)])
            else:
                current.argv.append(token)
            k += 1
        if current.argv or current.writes:
            pipeline.append(current)
        if pipeline:
            yield start, pipeline


# a use of a shell variable in a word (`$f`, `${f}`), its name in either group
_USE = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def _looped(pipelines: Iterable[tuple[int, list[_Simple]]]
            ) -> Iterator[tuple[int, list[_Simple]]]:
    """``pipelines`` with each command in the body of a ``for VAR in WORD ...`` loop over
    literal words run once per word, ``$VAR`` replaced by it (kubeflow/trainer's release
    job: ``for f in manifests/overlays/manager/kustomization.yaml ...; do sed -i
    "s/newTag: .*/newTag: $TAG/" "$f"; done`` rewrites each kustomization it lists; judge
    round EM). A loop over words the shell computes (``$(ls)``, ``$FILES``) binds nothing:
    its uses stay variables. A loop ends at its ``done``."""
    loops: list[tuple[str, tuple[str, ...] | None]] = []
    for line, pipeline in pipelines:
        head = pipeline[0].argv if pipeline else []
        if len(head) >= 3 and head[0] == "for" and head[2] == "in":
            listed = tuple(head[3:])
            literal = bool(listed) and not any(_variable(w) for w in listed)
            loops.append((head[1], listed if literal else None))
            continue
        if head[:1] == ["done"] and loops:
            loops.pop()
            yield line, pipeline
            continue
        bound = {name: words for name, words in loops}  # (an inner loop's name wins)
        used = [name for simple in pipeline for word in (*simple.argv, *simple.writes,
                                                          *simple.reads)
                for use in _USE.finditer(word)
                if bound.get(name := use.group(1) or use.group(2)) is not None]
        words = bound.get(used[0]) if used else None
        if words is None:
            yield line, pipeline
            continue
        for word in words:
            yield line, [_Simple([_put(a, used[0], word) for a in simple.argv],
                                 [_put(w, used[0], word) for w in simple.writes],
                                 [_put(r, used[0], word) for r in simple.reads])
                         for simple in pipeline]


def _put(text: str, name: str, value: str) -> str:
    """``text`` with each use of the shell variable ``name`` replaced by ``value``."""
    return _USE.sub(lambda use: value if (use.group(1) or use.group(2)) == name
                    else use.group(0), text)


@functools.lru_cache(maxsize=4096)
def _tokens(line: str) -> tuple[str, ...] | None:
    """The shell words and operators of one logical line (None: unbalanced quotes). Cached:
    the same script run by many steps is split once."""
    try:
        return shell_words(line)
    except ValueError:
        return None


_SPACE = " \t\r\n"  # shlex's whitespace
_PUNCTUATION = ";&|()<>"
_PUNCTUATION_SET = frozenset(_PUNCTUATION)
_WORD_RUN = re.compile(r"[^ \t\r\n#'\"\\;&|()<>]+")
_PUNCTUATION_RUN = re.compile(r"[;&|()<>]+")
_SPACE_RUN = re.compile(r"[ \t\r\n]*")
_DOUBLE_QUOTED_RUN = re.compile(r'[^"\\]*')


def shell_words(line: str) -> tuple[str, ...]:
    """What ``shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")`` with
    ``whitespace_split`` and ``#`` comments yields, the same words and the same ``ValueError``
    on an unclosed quote or a trailing escape, read a run of characters at a time (``shlex``
    reads one at a time: 4% of a lint of a repository with CI scripts).
    ``tests/test_ci_steps.py`` compares the two on generated lines and the corpus's."""
    out: list[str] = []
    n = len(line)
    i = 0
    while True:
        i = _SPACE_RUN.match(line, i).end()  # type: ignore[union-attr]
        if i >= n:
            return tuple(out)
        c = line[i]
        if c == "#":  # a comment: the rest of the line
            j = line.find("\n", i)
            if j < 0:
                return tuple(out)
            i = j + 1
            continue
        if c in _PUNCTUATION_SET:
            m = _PUNCTUATION_RUN.match(line, i)
            out.append(m.group())  # type: ignore[union-attr]
            i = m.end()  # type: ignore[union-attr]
            continue
        parts: list[str] = []
        quoted = False
        while i < n:
            c = line[i]
            if c in _SPACE or c in _PUNCTUATION_SET:
                break
            if c == "#":
                j = line.find("\n", i)
                i = n if j < 0 else j + 1
                break
            if c == "'":
                j = line.find("'", i + 1)
                if j < 0:
                    raise ValueError("No closing quotation")
                parts.append(line[i + 1:j])
                quoted = True
                i = j + 1
            elif c == '"':
                i += 1
                while True:
                    m = _DOUBLE_QUOTED_RUN.match(line, i)
                    parts.append(m.group())  # type: ignore[union-attr]
                    i = m.end()  # type: ignore[union-attr]
                    if i >= n:
                        raise ValueError("No closing quotation")
                    if line[i] == '"':
                        i += 1
                        break
                    if i + 1 >= n:  # a backslash: in double quotes it escapes \\ and " only
                        raise ValueError("No escaped character")
                    escaped = line[i + 1]
                    parts.append(escaped if escaped in '\\"' else "\\" + escaped)
                    i += 2
                quoted = True
            elif c == "\\":
                if i + 1 >= n:
                    raise ValueError("No escaped character")
                parts.append(line[i + 1])
                i += 2
            else:
                m = _WORD_RUN.match(line, i)
                parts.append(m.group())  # type: ignore[union-attr]
                i = m.end()  # type: ignore[union-attr]
        word = "".join(parts)
        if word or quoted:
            out.append(word)


_PARENS = re.compile(r"[()]")


def _substitutions(line: str) -> tuple[str, list[str]]:
    """``line`` with each command substitution ``$(...)`` and process substitution
    ``<(...)`` made a variable (its value is not known), and the commands inside them
    (nested ones included, innermost last). The text between two substitutions is taken
    whole (``find``), the parentheses counted from one to the next (``_PARENS``)."""
    if "$(" not in line and "<(" not in line:
        return line, []
    out: list[str] = []
    inner: list[str] = []
    i = 0
    while True:
        found = _SUBSTITUTION.search(line, i)
        while found is not None and line.startswith("$((", found.start()):  # arithmetic: as
            found = _SUBSTITUTION.search(line, found.start() + 1)  # it is
        at = found.start() if found is not None else -1
        if at < 0:
            out.append(line[i:])
            return "".join(out), inner
        out.append(line[i:at])
        depth, j = 1, at + 2
        while depth:
            paren = _PARENS.search(line, j)
            if paren is None:
                j = len(line)
                break
            depth += 1 if paren.group() == "(" else -1
            j = paren.end()
        inner.append(line[at + 2:j - 1] if depth == 0 else line[at + 2:])
        out.append("${SUBSTITUTION}")
        i = j


_SUBSTITUTION = re.compile(r"[$<]\(")  # ``$(`` a command's output, ``<(`` a process's


def _logical(lines: Sequence[str], i: int) -> tuple[str, int]:
    """The logical line starting at ``lines[i]`` (lines ending in ``\\`` continue), and
    the index after it."""
    parts = [lines[i]]
    i += 1
    while parts[-1].endswith("\\") and i < len(lines):
        parts[-1] = parts[-1][:-1]
        parts.append(lines[i].lstrip("\t"))
        i += 1
    return " ".join(parts), i


def _closes(text: str) -> bool:
    """Whether an array's text closes on this line (a ``)`` not of ``$(...)``)."""
    return ")" in text.replace("$(", "").replace("{", "")


def _deploys(name: str, argv: Sequence[str]) -> bool:
    """Whether a command applies manifests or builds them for a cluster (``kubectl apply``,
    ``kustomize build``, ``helm upgrade``, ``skaffold run``, ``flux push``): what makes a
    Makefile target a deployment rather than a chore."""
    words = set(argv[1:4])
    return bool(
        name in ("kubectl", "oc") and words & {"apply", "create", "replace", "kustomize"}
        or name == "kustomize" and "build" in words
        or name == "helm" and words & {"install", "upgrade", "template"}
        or name == "skaffold" and words & {"run", "deploy", "dev", "render"}
        or name == "flux" and words & {"push", "build"}
        or name == "argocd" and words & {"app"}
        or name == "kubectl" and "set" in words)


def _could_be_manifest(path: str) -> bool:
    """A path a rewrite of manifests can name: YAML or JSON, ``Kustomization``, a glob."""
    base = posixpath.basename(path)
    return (base.endswith(MANIFEST_SUFFIXES) or base == "Kustomization"
            or any(c in base for c in "*?["))


def _applies_stdin(argv: Sequence[str]) -> bool:
    """``kubectl apply -f -`` (``create``, ``replace``; ``oc`` too)."""
    if not argv or posixpath.basename(argv[0]) not in ("kubectl", "oc"):
        return False
    if not {"apply", "create", "replace"} & set(argv[1:4]):
        return False
    return any(a in ("-f-", "--filename=-") or (a in ("-f", "--filename") and b == "-")
               for a, b in zip(argv, [*argv[1:], ""], strict=True))


def _operands(argv: Sequence[str]) -> list[str]:
    """The words of ``argv`` after its name that are no options, the expression first
    (``""`` when ``-e``/``-f``/``--expression`` gave it; ``yq``'s subcommand dropped):
    ``sed``/``yq`` read the files after it."""
    out: list[str] = []
    given = False
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-e", "-f", "--expression", "--file", "--from-file", "-o",
                   "--output-format", "-p", "-I", "--indent"):
            given = given or arg in ("-e", "-f", "--expression", "--file", "--from-file")
            next(args, None)  # the option's value
        elif not arg.startswith("-"):
            out.append(arg)
    if out and posixpath.basename(argv[0]) == "yq" and out[0] in ("e", "eval", "ea",
                                                                    "eval-all"):
        out = out[1:]
    return ["", *out] if given else out


_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=.*")  # NAME=value before a command (fullmatch)


def _unwrap(argv: list[str]) -> list[str]:
    """The command itself: keywords, ``sudo``/``env``/``xargs`` and assignments dropped."""
    out = list(argv)
    while out:
        head = out[0]
        if head in _KEYWORDS or "=" in head and _ASSIGNMENT.fullmatch(head):
            out = out[1:]
        elif head in ("sudo", "env", "xargs", "nice", "timeout", "stdbuf"):
            out = out[1:]
            while out and (out[0].startswith("-") or "=" in out[0] and _ASSIGNMENT.fullmatch(out[0])
                           or (head == "timeout" and out[0][:1].isdigit())):
                takes = head == "xargs" and out[0] in ("-I", "-n", "-P", "-L", "-d", "-E",
                                                       "-s", "-a")
                out = out[2:] if takes else out[1:]
        elif head in ("for", "case", "select", "function"):
            return []
        else:
            break
    return out


# a sed substitution (``s/PATTERN/REPLACEMENT/FLAGS``, any delimiter) and what its pattern
# starts with when it rewrites an image reference: kustomize's image fields, a container's
# `image:`, a chart's `tag:`, or an image's own name before its tag
# (`(ghcr\.io/kubeflow/trainer/data-cache):[^"]*`)
_SED_SUBSTITUTION = re.compile(r"s(.)(.*?)(?<!\\)\1.*?(?<!\\)\1[gIip0-9]*")
_IMAGE_PATTERN = re.compile(r"^\^?\s*(?:-\s*)?(?:newTag|newName|digest|image|tag)\s*:"
                            r"|^\(?[\w\\.-]+\\?\.[\w\\.-]+/[\w\\./-]+\)?:")


def _images_only(script: str) -> bool:
    """Whether a sed ``script`` is substitutions only (``;`` between them), each of an image
    reference (:data:`_IMAGE_PATTERN`): it changes what images run and nothing else, as
    ``kustomize edit set image`` does (kubeflow/trainer's release job: ``s/newTag: .*/newTag:
    $TAG/``; judge round EM). Any other command, or substitution, changes more."""
    parts = [p.strip() for p in script.split(";") if p.strip()]
    return bool(parts) and all(
        (m := _SED_SUBSTITUTION.fullmatch(p)) is not None and _IMAGE_PATTERN.match(m.group(2))
        is not None for p in parts)


def _variable(text: str | None) -> bool:
    return text is None or "$" in text or "`" in text or UNKNOWN in text


def _target(cwd: str, written: str, root: str = "") -> str | None:
    """``written`` as a repository-relative path, or None (a variable, outside the
    repository: an absolute path, ``~``, ``..`` above the root). ``root``: the folder of
    the repository the CI file belongs to (what ``$GITHUB_WORKSPACE`` names)."""
    if written.startswith(ROOT):
        cwd, written = root, written[len(ROOT):].lstrip("/") or "."
    elif written.startswith(TREE):
        cwd, written = "", written[len(TREE):].lstrip("/") or "."
    if cwd == UNKNOWN or not written:
        return None
    if _variable(written) or written.startswith(("/", "~")) or "\x00" in written:
        return None
    path = posixpath.normpath(posixpath.join(cwd, written) if cwd else written)
    if path == ".":
        return ""
    if path == ".." or path.startswith("../"):
        return None
    return path


def _moved(cwd: str, target: str, root: str) -> str:
    if target == "-" or (cwd == UNKNOWN and not target.startswith((ROOT, TREE))):
        return UNKNOWN
    path = _target(cwd, target, root)
    return UNKNOWN if path is None else path


def _folder(written: str, root: str) -> str:
    path = _target(root, _TOPLEVEL.sub(ROOT, written), root)
    return UNKNOWN if path is None else path


def _default_dir(value: Mapping[str, Any], root: str) -> str:
    defaults = value.get("defaults")
    run = defaults.get("run") if isinstance(defaults, dict) else None
    folder = run.get("working-directory") if isinstance(run, dict) else None
    return _folder(folder, root) if isinstance(folder, str) else ""


def _step_name(step: Mapping[str, Any], n: int) -> str:
    name = step.get("name")
    if isinstance(name, str) and name.strip():
        return f"step '{name.strip()}'"
    if isinstance(step.get("id"), str):
        return f"step '{step['id']}'"
    return f"step {n}"


def _cloudbuild_script(step: Mapping[str, Any]) -> str | None:
    script = step.get("script")
    if isinstance(script, str):
        return script
    args = step.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    entry = step.get("entrypoint")
    if isinstance(entry, str) and posixpath.basename(entry) in ("bash", "sh") and (
            "-c" in args):
        at = args.index("-c")
        return args[at + 1] if at + 1 < len(args) else None
    tool = entry if isinstance(entry, str) else posixpath.basename(
        str(step.get("name") or "")).partition(":")[0]
    import shlex

    return shlex.join([tool, *args]) if tool else None


def _image_name(ref: str) -> str:
    """The name of ``name:tag`` / ``name@digest`` (a registry port is kept)."""
    name = ref.partition("@")[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name




def _make_rule(line: str) -> tuple[list[str], list[str]] | None:
    """(targets, prerequisites) of a rule line ``a b: c d`` (``a:: c``, ``a: c ; cmd``);
    None for an assignment (``A := x``, ``A = b:c``), a directive or a target that is a
    variable. Read by position, no regular expression: linear on any line."""
    head = line.split("#", 1)[0]
    if not head or head[0].isspace():
        return None
    colon = head.find(":")
    if colon <= 0 or "=" in head[:colon] or "$" in head[:colon]:
        return None
    rest = head[colon + 1:]
    if rest.startswith(":"):
        rest = rest[1:]
    if rest.startswith("="):
        return None
    return head[:colon].split(), rest.split(";", 1)[0].split()


def _make_includes(text: str) -> list[str]:
    """The files a Makefile's ``include`` (``-include``, ``sinclude``) directives name
    literally; one that names a variable is not known here."""
    out: list[str] = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) > 1 and words[0] in ("include", "-include", "sinclude"):
            out += [w for w in words[1:] if "$" not in w]
    return out


def _make_rules(text: str) -> dict[str, tuple[list[str], list[tuple[int, str]]]]:
    """Targets of a Makefile: prerequisites and recipe lines (line, shell text with make's
    ``$$`` as ``$`` and ``$(MAKE)`` as ``make``; other make variables stay ``$(...)``,
    variables)."""
    rules: dict[str, tuple[list[str], list[tuple[int, str]]]] = {}
    current: list[tuple[int, str]] | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        number = i + 1
        raw, i = _logical(lines, i)
        if len(raw) > MAX_LINE:
            continue
        if raw.startswith("\t"):
            if current is not None:
                recipe = raw[1:].lstrip("@-+ \t")
                recipe = re.sub(r"\$[({]MAKE[)}]", "make", recipe).replace("$$", "\x00")
                for _ in range(4):  # make's $(VAR) and ${VAR}: a variable to the shell
                    recipe = re.sub(r"\$[({]([^(){}$]*)[)}]", r"@{\1}", recipe)
                recipe = recipe.replace("@{", "${").replace("\x00", "$")
                current.append((number, recipe))
            continue
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        rule = _make_rule(raw)
        if rule is None:
            current = None
            continue
        recipe_list: list[tuple[int, str]] = []
        for target in rule[0]:
            if target not in rules:
                rules[target] = (rule[1], recipe_list)
        current = recipe_list
    return rules


# ---------------------------------------------------------------- patterns


def glob_match(path: str, pattern: str) -> bool:
    """The shell's glob: ``*`` and ``?`` stay within a path segment; no glob: equality."""
    if not any(c in pattern for c in "*?["):
        return path == pattern
    parts, globs = path.split("/"), pattern.split("/")
    if "**" in globs:  # globstar: any number of folders
        return _globstar(parts, globs)
    return len(parts) == len(globs) and all(
        fnmatch.fnmatchcase(p, g) for p, g in zip(parts, globs, strict=True))


def _globstar(parts: Sequence[str], globs: Sequence[str]) -> bool:
    if not globs:
        return not parts
    if globs[0] == "**":
        return any(_globstar(parts[i:], globs[1:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], globs[0]) and _globstar(
        parts[1:], globs[1:])


def _relative(path: str, base: str) -> str | None:
    if base in ("", "."):
        return path
    if path.startswith(base + "/"):
        return path[len(base) + 1:]
    return None


def _gitignored(rel: str, pattern: str) -> bool:
    """``rel`` (a file's path relative to the ignore file's folder) under gitignore
    ``pattern``: anchored when it holds a ``/`` before its end, else any segment."""
    anchored = pattern.strip()
    if not anchored or anchored.startswith(("#", "!")):
        return False
    inner = anchored.rstrip("/")
    if "/" in inner:
        inner = inner.lstrip("/")
        parts = rel.split("/")
        return any(glob_match("/".join(parts[:n]), inner) for n in range(1, len(parts) + 1))
    return any(fnmatch.fnmatchcase(part, inner) for part in rel.split("/")[:-1]) or (
        not anchored.endswith("/") and fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], inner))


def describe_all(facts: CiFacts) -> Iterable[str]:
    """One line per fact (for ``--verbose`` readers and the tests' failure messages)."""
    for r in facts.rewrites:
        yield f"rewrite {', '.join(r.targets)}: {r.describe()} ({r.step.where})"
    for r in facts.unknown:
        yield f"rewrite of an unknown target ({r.written}): {r.step.label} ({r.step.where})"
    for s in facts.skipped_by_validation:
        yield f"validation skips {s.pattern!r}: {s.describe()}"
