"""Deterministic log probabilities for `logprobs: true`: the same text always gets the same numbers."""

from __future__ import annotations

import zlib
from typing import Any

_ALTERNATIVES = (
    " the",
    " a",
    " and",
    " to",
    " of",
    " in",
    " is",
    " that",
    " it",
    " for",
    ",",
    ".",
    " with",
    " as",
    " on",
    " this",
    " be",
    " are",
    " or",
    " was",
)


def _logprob(token: str, position: int, rank: int) -> float:
    """A stable value in (-12, 0]: the chosen token near 0, alternatives lower by rank."""
    spread = zlib.crc32(f"{position}:{rank}:{token}".encode()) % 1000 / 1000
    return -round(spread * 0.5 + rank * 1.5, 4)


def token_logprobs(pieces: list[str], top: int, start: int = 0) -> list[dict[str, Any]]:
    """One `logprobs.content` entry per token; `top` alternatives each (the token itself first)."""
    entries = []
    for offset, piece in enumerate(pieces):
        position = start + offset
        chosen = _logprob(piece, position, 0)
        alternatives = [{"token": piece, "logprob": chosen, "bytes": list(piece.encode())}]
        k = 0
        while len(alternatives) < top:
            alt = _ALTERNATIVES[(position + k) % len(_ALTERNATIVES)]
            k += 1
            if alt != piece:
                lp = _logprob(alt, position, len(alternatives))
                alternatives.append({"token": alt, "logprob": lp, "bytes": list(alt.encode())})
        entries.append(
            {"token": piece, "logprob": chosen, "bytes": list(piece.encode()), "top_logprobs": alternatives[:top]}
        )
    return entries
