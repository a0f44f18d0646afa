"""Reasoning signatures the emulator mints and later verifies, encoded like the real ones.

A signature is an HMAC-SHA256 over the model family, the block's index and its exact text,
under a secret that the seed determines (or `--reasoning-secret`), padded with deterministic
bytes to a realistic length and base64-encoded. OpenAI's encrypted reasoning is a Fernet-like
token (`gAAAAA…`): the text, masked with a keystream, behind an HMAC over the item id and bytes.
Editing the text, the signature, the index, or moving a block to another family breaks it.

Reasoning recorded from an upstream carries the upstream's own signatures, which no secret here
can mint: a `Signer.accepting(recorded)` also accepts exactly those, bound to their text (or item id).
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac
from dataclasses import dataclass

_SIGNATURE_BYTES = 240  # about 320 base64 characters, like Anthropic's
_TOKEN_PREFIX = b"\x80" + bytes(8)  # version byte and a zero timestamp: encodes as "gAAAAA..."


@dataclass(frozen=True, slots=True)
class RecordedReasoning:
    """Signatures and encrypted payloads an upstream minted, as scenario files recorded them."""

    signatures: frozenset[tuple[str, str]] = frozenset()
    """(text, signature) of each recorded reasoning block (index 0)."""
    encrypted: frozenset[tuple[str, str]] = frozenset()
    """(item id, data) of each recorded encrypted reasoning block."""

    def __bool__(self) -> bool:
        return bool(self.signatures or self.encrypted)


NOTHING_RECORDED = RecordedReasoning()


class Signer:
    """Mints and checks signatures and encrypted payloads under one secret."""

    def __init__(self, secret: bytes) -> None:
        self._key = hashlib.sha256(b"zenmux-emulator reasoning\x00" + secret).digest()
        self.recorded = NOTHING_RECORDED

    def accepting(self, recorded: RecordedReasoning) -> Signer:
        """This signer, also accepting the recorded blocks (set lookups: checks stay O(1))."""
        if not recorded:
            return self
        other = copy.copy(self)
        other.recorded = recorded
        return other

    @classmethod
    def from_settings(cls, seed: int, secret: str | None) -> Signer:
        return cls(secret.encode() if secret is not None else f"seed:{seed}".encode())

    def _mac(self, *parts: bytes) -> bytes:
        return hmac.new(self._key, b"\x1f".join(parts), hashlib.sha256).digest()

    def sign(self, family: str, index: int, text: str) -> str:
        """The signature of a reasoning block."""
        mac = self._mac(b"signature", family.encode(), str(index).encode(), text.encode())
        filler = hashlib.shake_256(mac + self._key).digest(_SIGNATURE_BYTES - len(mac) - 2)
        return base64.b64encode(b"\x12\x08" + mac + filler).decode()

    def verify(self, family: str, index: int, text: str, signature: str) -> bool:
        if index == 0 and (text, signature) in self.recorded.signatures:
            return True
        return hmac.compare_digest(self.sign(family, index, text), signature)

    def encrypt(self, item_id: str, text: str) -> str:
        """An opaque `reasoning.encrypted` payload bound to its item id."""
        plain = text.encode()
        stream = hashlib.shake_256(self._key + item_id.encode()).digest(len(plain))
        masked = bytes(a ^ b for a, b in zip(plain, stream, strict=True))
        mac = self._mac(b"encrypted", item_id.encode(), masked)
        return base64.urlsafe_b64encode(_TOKEN_PREFIX + mac + masked).decode()

    def check_encrypted(self, item_id: str, data: str) -> bool:
        """Whether `data` is a payload this secret minted (or an upstream's recorded) for `item_id`, unaltered."""
        if (item_id, data) in self.recorded.encrypted:
            return True
        try:
            raw = base64.urlsafe_b64decode(data.encode())
        except (binascii.Error, ValueError):
            return False
        if not raw.startswith(_TOKEN_PREFIX) or len(raw) < len(_TOKEN_PREFIX) + 32:
            return False
        mac, masked = raw[len(_TOKEN_PREFIX) :][:32], raw[len(_TOKEN_PREFIX) + 32 :]
        return hmac.compare_digest(mac, self._mac(b"encrypted", item_id.encode(), masked))
