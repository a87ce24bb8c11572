"""change-safety's SOPS verdicts: a SOPS-encrypted object that lost a recipient
(`sops-recipient`), holds a value in clear that its rules encrypt (`sops-plaintext`), or
holds ciphertext with no `sops:` block (`sops-unreadable`). Keys and recipients only: never
a value or ciphertext (:mod:`reviewbot.model.sops`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from reviewbot.engine.findings import Violation
from reviewbot.model import sops

if TYPE_CHECKING:  # the diff's types only: a lint never imports the diff
    from reviewbot.diff.objects import ObjectDiff


def sops_verdicts(entry: ObjectDiff) -> Iterator[Violation]:
    """A SOPS document that lost a recipient, holds a value in clear its rules encrypt, or
    holds ciphertext with no ``sops:`` block (added or modified objects)."""
    new = entry.head
    if new is None or entry.status not in ("added", "modified", "renamed"):
        return
    meta = sops.metadata(new.body)
    if meta is None:
        unreadable = sops.ciphertext_without_metadata(new.body)
        if unreadable:
            where = ", ".join(".".join(p) for p, _ in unreadable[:3])
            yield Violation(new, unreadable[0][1], (
                f"{new.ref} holds SOPS ciphertext ({where}) but no sops: block: nothing can "
                "decrypt it, and the cluster gets the ciphertext as the value"),
                fix="Encrypt the file with sops (sops --encrypt --in-place), or restore its "
                    "sops: block", kind="sops-unreadable")
        return
    old = entry.base.body if entry.base is not None else None
    before = sops.metadata(old)
    if before is not None:
        gone = [r for r in sops.recipients(before) if r not in sops.recipients(meta)]
        if gone:
            yield Violation(new, ("sops",), (
                f"{new.ref} is no longer encrypted to the SOPS recipient"
                f"{'s' if len(gone) > 1 else ''} {', '.join(gone)}: a cluster that decrypts "
                "with that key cannot read it, and the Flux Kustomization applying it fails"),
                fix="Keep the cluster's key among the recipients (sops updatekeys), or confirm "
                    "the cluster decrypts with a key that is left", kind="sops-recipient")
    for keys, path in sops.in_clear(new.body):
        yield Violation(new, path, (
            f"{new.ref}: {'.'.join(keys)} is in clear in a SOPS-encrypted document whose "
            f"rules encrypt it ({sops.rule_text(meta)}): a secret committed in clear, and the "
            "MAC no longer matches, so decryption fails"),
            fix="Encrypt it with sops (sops edit, or sops --encrypt --in-place), and rotate "
                "the secret: it is in the git history", kind="sops-plaintext")

