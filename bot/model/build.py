"""Images a build tool the repository declares supplies at deploy time.

Some image references in manifests are not what the cluster pulls: a build tool replaces
them when it deploys.

- skaffold: a ``skaffold.yaml`` (``apiVersion: skaffold/*``, ``kind: Config``) names the
  images it builds in ``build.artifacts[].image`` (and in each profile's ``build``). In the
  manifests it deploys, skaffold replaces every reference to such an image name, whatever tag
  is written, with the image it built, by tag and digest (``frontend:<tag>@sha256:...``).
- ko: a ``ko://<import path>`` reference is built from that Go package by ``ko resolve`` /
  ``ko apply`` and replaced by ``<KO_DOCKER_REPO>/<name>@sha256:...``.

:func:`builder_of` answers "does a declared build step replace this image?"; :func:`akin`
answers "does a declared build step build an image of the same short name?" (a placeholder
such as ``acme/manager:latest`` beside ``ko://github.com/acme/op/cmd/manager`` is most likely
rewritten by a step that names it, but nothing in the repository says so).
"""

from __future__ import annotations

from dataclasses import dataclass

from reviewbot.model.images import ImageRef
from reviewbot.model.objects import KObject, Model, Path

KO_PREFIX = "ko://"


@dataclass(frozen=True)
class Builder:
    """One image a build tool builds: the tool, the image name, where the repository says so."""

    tool: str  # skaffold | ko
    image: str  # skaffold: the artifact's image name; ko: the import path
    obj: KObject
    path: Path

    @property
    def short(self) -> str:
        """The last path segment of the image name (``frontend``, ``manager``)."""
        return self.image.rstrip("/").rsplit("/", 1)[-1]

    @property
    def where(self) -> str:
        line, _ = self.obj.position(self.path)
        return f"{self.obj.file}:{line}"

    @property
    def replacement(self) -> str:
        """What the tool writes in the reference's place."""
        if self.tool == "ko":
            return "the image it built, by digest"
        return "the image it built, by tag and digest"

    def describe(self) -> str:
        if self.tool == "ko":
            return f"ko builds {self.image} ({self.where})"
        return f"skaffold builds {self.image} ({self.where})"


def builders(model: Model) -> list[Builder]:
    """Every image the repository's build tools build (computed once per model)."""
    found = model.derived.get("builders")
    if found is None:
        found = model.derived["builders"] = _builders(model)
    return list(found)


def _builders(model: Model) -> list[Builder]:
    out: list[Builder] = []
    for obj in model.objects:
        if obj.kind != "Config" or not obj.api_version.startswith("skaffold/"):
            continue
        sections: list[tuple[object, Path]] = [(obj.get(("build",)), ("build",))]
        for i, profile in enumerate(obj.get(("profiles",)) or []):
            if isinstance(profile, dict):
                sections.append((profile.get("build"), ("profiles", i, "build")))
        for build, path in sections:
            artifacts = build.get("artifacts") if isinstance(build, dict) else None
            for i, artifact in enumerate(artifacts or []):
                image = artifact.get("image") if isinstance(artifact, dict) else None
                if isinstance(image, str) and image.strip():
                    out.append(Builder("skaffold", image.strip(), obj,
                                       path + ("artifacts", i, "image")))
    seen: set[str] = set()
    for pod in (*model.pods, *model.templates):
        for container in pod.containers:
            image = container.image
            if isinstance(image, str) and image.strip().startswith(KO_PREFIX):
                name = image.strip()[len(KO_PREFIX):]
                if name not in seen:
                    seen.add(name)
                    out.append(Builder("ko", name, pod.obj, container.path + ("image",)))
    return out


def builder_of(model: Model, ref: ImageRef) -> Builder | None:
    """The build step that replaces this reference when it deploys, if one is declared."""
    if ref.text.startswith(KO_PREFIX):
        name = ref.text[len(KO_PREFIX):]
        return next((b for b in builders(model) if b.tool == "ko" and b.image == name), None)
    if ref.repository is None:
        return None
    return next((b for b in builders(model)
                 if b.tool == "skaffold" and b.image == ref.repository), None)


def akin(model: Model, ref: ImageRef) -> Builder | None:
    """A declared build step that builds an image of the same short name (not this one)."""
    if ref.repository is None or ref.text.startswith(KO_PREFIX):
        return None
    short = ref.repository.rsplit("/", 1)[-1]
    return next((b for b in builders(model) if b.short == short), None)
