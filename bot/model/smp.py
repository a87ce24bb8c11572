"""Strategic merge patches: a patch merged into an object, list fields merged by key."""

from __future__ import annotations

from typing import Any

from reviewbot.load.loader import Document
from reviewbot.model.resource import Patch, Path, Resource

# strategic merge: list fields merged by key (the Kubernetes patchMergeKey of the field)
MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "env": "name", "volumes": "name", "volumeMounts": "mountPath", "ports": "containerPort",
    "imagePullSecrets": "name", "hostAliases": "ip", "volumeDevices": "devicePath",
    "topologySpreadConstraints": "topologyKey", "resourceClaims": "name",
}


def apply_smp(r: Resource, patch: Patch) -> Resource:
    if not isinstance(patch.body, dict):
        return r
    origins = dict(r.origins)
    body = _merge(r.body, patch.body, (), patch, origins, r.path)
    if not isinstance(body, dict):
        return r
    return Resource(r.doc, r.path, body, origins)


def _merge(
    base: Any, patch: Any, here: Path, source: Patch, origins: dict[Path, tuple[Document, Path]],
    base_path: Path,
) -> Any:
    if not isinstance(patch, dict) or not isinstance(base, dict):
        origins[here] = (source.doc, source.path + here)
        return patch
    if patch.get("$patch") == "replace":
        origins[here] = (source.doc, source.path + here)
        return {k: v for k, v in patch.items() if k != "$patch"}
    out = dict(base)
    for key, value in patch.items():
        if not isinstance(key, str) or key.startswith("$"):
            continue
        if value is None:
            out.pop(key, None)
            continue
        step = here + (key,)
        if isinstance(value, list) and isinstance(out.get(key), list) and key in MERGE_KEYS:
            out[key] = _merge_list(out[key], value, MERGE_KEYS[key], step, source, origins,
                                   base_path)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value, step, source, origins, base_path)
        else:
            out[key] = value
            origins[step] = (source.doc, source.path + step)
    return out


def _merge_list(
    base: list[Any], patch: list[Any], key: str, here: Path, source: Patch,
    origins: dict[Path, tuple[Document, Path]], base_path: Path,
) -> list[Any]:
    out = list(base)
    for j, item in enumerate(patch):
        if not isinstance(item, dict) or key not in item:
            continue
        index = next((i for i, b in enumerate(out)
                      if isinstance(b, dict) and b.get(key) == item[key]), None)
        if item.get("$patch") == "delete":
            if index is not None:
                del out[index]
            continue
        if index is None:
            out.append({k: v for k, v in item.items() if not str(k).startswith("$")})
            origins[here + (len(out) - 1,)] = (source.doc, source.path + here + (j,))
        else:
            sub = Patch(source.body, source.doc, source.path)
            merged_origins: dict[Path, tuple[Document, Path]] = {}
            out[index] = _merge(out[index], item, here + (index,), sub, merged_origins,
                                base_path)
            # fields of the patch element: located at the element of the patch file
            for path, (doc, _where) in merged_origins.items():
                rest = path[len(here) + 1:]
                origins[path] = (doc, source.path + here + (j,) + rest)
    return out

