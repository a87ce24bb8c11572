"""Image references, split the way the container runtime reads them."""

from __future__ import annotations

import re
from dataclasses import dataclass

DIGEST = re.compile(r"^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$")


@dataclass(frozen=True)
class ImageRef:
    """An image reference split the way the container runtime reads it.

    ``repository`` is None when chart values leave it to the chart's default; ``tag`` is None
    when no tag is written (``chart_tag``: values leave the tag to the chart, usually its
    appVersion, rather than to ``:latest``).
    """

    text: str
    repository: str | None
    tag: str | None
    digest: str | None
    chart_tag: bool = False
    # values that name an image without a tag, beside a ``global`` mapping with ``tag`` (and
    # ``hub``) set: the dotted path of the tag the chart's templates may give it (``global.tag``)
    tag_from: str | None = None

    @property
    def name(self) -> str:
        return self.repository or "the chart's default image"


def parse_image(text: str) -> ImageRef:
    name, _, digest = text.partition("@")
    last = name.rsplit("/", 1)[-1]
    tag = None
    if ":" in last:
        name, _, tag = name.rpartition(":")
    return ImageRef(text, name or None, tag or None, digest or None)
