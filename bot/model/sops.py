"""SOPS-encrypted documents: what a file encrypted with sops holds, read without a key.

A document sops encrypted carries a top-level ``sops:`` block (its metadata: the data key
encrypted to each recipient, ``lastmodified``, the MAC, and which values are encrypted) and
values written ``ENC[AES256_GCM,data:...,iv:...,tag:...,type:str]``. Flux's
kustomize-controller decrypts such documents and strips ``sops:`` before applying them.

Which values sops encrypts (getsops/sops ``Tree.Encrypt``/``shouldBeEncrypted``): a value
is encrypted unless a key on its path ends with ``unencrypted_suffix`` (``_unencrypted`` when
the file names no rule) or matches ``unencrypted_regex``; with ``encrypted_suffix`` or
``encrypted_regex`` only values under a key that ends with, or matches, it are. The metadata
block itself is not encrypted.

Nothing here decrypts, and nothing shows a value or ciphertext: callers get keys, paths and
recipients.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

# sops' value format is ``ENC[AES256_GCM,data:<b64>,iv:<b64>,tag:<b64>,type:<t>]``: any text
# holding ``ENC[AES256_GCM,`` is treated as ciphertext, never shown
DEFAULT_UNENCRYPTED_SUFFIX = "_unencrypted"
# recipient list -> the field naming each recipient (the rest is its encrypted data key)
_RECIPIENTS = {
    "age": ("recipient",), "pgp": ("fp",), "kms": ("arn",), "gcp_kms": ("resource_id",),
    "azure_kv": ("vault_url", "name", "version"),
    "hc_vault": ("vault_address", "engine_path", "key_name"),
}
# metadata settings shown as they are (none is secret)
SETTINGS = ("lastmodified", "version", "encrypted_regex", "unencrypted_regex",
            "encrypted_suffix", "unencrypted_suffix", "encrypted_comment_regex",
            "unencrypted_comment_regex", "mac_only_encrypted", "shamir_threshold")

Path = tuple[str, ...]


def is_encrypted(value: Any) -> bool:
    """A value sops encrypted (or text that holds one: a patch, a dotenv file)."""
    return isinstance(value, str) and "ENC[AES256_GCM," in value


def metadata(body: Any) -> Mapping[str, Any] | None:
    """The document's ``sops:`` block, when it is one (a mapping holding a MAC, a
    ``lastmodified`` or key groups); else None."""
    if not isinstance(body, dict):
        return None
    meta = body.get("sops")
    if not isinstance(meta, dict):
        return None
    if any(k in meta for k in ("mac", "lastmodified", "key_groups", *_RECIPIENTS)):
        return meta
    return None


def recipients(meta: Mapping[str, Any]) -> list[str]:
    """Who can decrypt: one name per recipient (``age:age1...``, ``pgp:<fingerprint>``,
    ``kms:<arn>`` ...), in key groups too, sorted; never an encrypted data key."""
    found: set[str] = set()
    groups = [meta]
    key_groups = meta.get("key_groups")
    if isinstance(key_groups, list):
        groups += [g for g in key_groups if isinstance(g, dict)]
    for group in groups:
        for kind, fields in _RECIPIENTS.items():
            entries = group.get(kind)
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict):
                    parts = [str(entry.get(f)) for f in fields if entry.get(f) is not None]
                    if parts:
                        found.add(f"{kind}:{'/'.join(parts)}")
    return sorted(found)


def summary(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata as a reviewer reads it: its settings and recipients, no key or MAC."""
    out: dict[str, Any] = {k: meta[k] for k in SETTINGS if k in meta}
    out["recipients"] = recipients(meta)
    return out


class Rules:
    """Which values of a document sops encrypts (its metadata's selection rules)."""

    def __init__(self, meta: Mapping[str, Any]) -> None:
        def text(key: str) -> str:
            value = meta.get(key)
            return value if isinstance(value, str) else ""

        self.encrypted_suffix = text("encrypted_suffix")
        self.unencrypted_suffix = text("unencrypted_suffix")
        self.encrypted_regex = _regex(text("encrypted_regex"))
        self.unencrypted_regex = _regex(text("unencrypted_regex"))
        if not (self.encrypted_suffix or self.unencrypted_suffix or self.encrypted_regex
                or self.unencrypted_regex or text("encrypted_comment_regex")
                or text("unencrypted_comment_regex")):
            self.unencrypted_suffix = DEFAULT_UNENCRYPTED_SUFFIX
        self.invalid = bool(text("encrypted_regex") and self.encrypted_regex is None
                            or text("unencrypted_regex") and self.unencrypted_regex is None)

    def encrypts(self, path: Path) -> bool:
        """Whether sops encrypts the value at ``path`` (its keys; list indices left out)."""
        if self.unencrypted_suffix and any(k.endswith(self.unencrypted_suffix) for k in path):
            return False
        if self.unencrypted_regex is not None and any(
                self.unencrypted_regex.search(k) for k in path):
            return False
        if self.encrypted_suffix:
            return any(k.endswith(self.encrypted_suffix) for k in path)
        if self.encrypted_regex is not None:
            return any(self.encrypted_regex.search(k) for k in path)
        return True


def _regex(text: str) -> re.Pattern[str] | None:
    if not text:
        return None
    try:
        return re.compile(text)
    except (re.error, RecursionError, OverflowError):
        return None


def leaves(body: Any, keys: Path = (), path: tuple[str | int, ...] = ()
           ) -> Iterator[tuple[Path, tuple[str | int, ...], Any]]:
    """(keys on the path, the full path, value) of every scalar of ``body`` outside the
    ``sops:`` block; sops matches keys only, so list indices are in the full path alone."""
    if isinstance(body, dict):
        for key, value in body.items():
            if not keys and key == "sops":
                continue
            yield from leaves(value, (*keys, str(key)), (*path, str(key)))
    elif isinstance(body, list):
        for i, value in enumerate(body):
            yield from leaves(value, keys, (*path, i))
    else:
        yield keys, path, body


def in_clear(body: Any) -> list[tuple[Path, tuple[str | int, ...]]]:
    """(keys, path) of the values a SOPS document holds in clear although its rules encrypt
    them (a value added after encrypting: a secret in clear, and a MAC that no longer
    matches, so decryption fails)."""
    meta = metadata(body)
    if meta is None:
        return []
    rules = Rules(meta)
    if rules.invalid:
        return []
    return [(keys, path) for keys, path, value in leaves(body)
            if value is not None and not is_encrypted(value) and rules.encrypts(keys)]


def ciphertext_without_metadata(body: Any) -> list[tuple[Path, tuple[str | int, ...]]]:
    """(keys, path) of the ``ENC[...]`` values of a document with no ``sops:`` block
    (nothing can decrypt them: the ciphertext is applied as the value)."""
    if metadata(body) is not None:
        return []
    return [(keys, path) for keys, path, value in leaves(body) if is_encrypted(value)]


def rule_text(meta: Mapping[str, Any]) -> str:
    """The document's selection rule as it reads in its metadata."""
    for key in ("encrypted_regex", "encrypted_suffix", "unencrypted_regex",
                "unencrypted_suffix"):
        if isinstance(meta.get(key), str) and meta[key]:
            return f"{key} {meta[key]}"
    return f"every value but *{DEFAULT_UNENCRYPTED_SUFFIX}"
