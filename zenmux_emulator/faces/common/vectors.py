"""Embedding vectors that behave like embeddings, made from the text alone.

A text's features are its lowercased words, its word pairs and the character trigrams of each
word (`#word#`); each feature is hashed, with the model and the seed, to one dimension and a sign,
and adds its weight there. The sum, made unit length, is the vector: texts that share words or
word pieces point the same way, unrelated texts are close to orthogonal, and the same (model,
text, dimensions, seed) always gives the same vector. Rerank scores come from the same vectors.
"""

from __future__ import annotations

import math
import re
import struct
from base64 import b64encode
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import pairwise

import xxhash

_WORD = re.compile(r"\w+")
WORD_WEIGHT = 1.0
PAIR_WEIGHT = 0.5
TRIGRAM_WEIGHT = 0.35


def features(text: str) -> Iterator[tuple[str, float]]:
    """(feature, weight) of every word, word pair and character trigram of the text."""
    words = _WORD.findall(text.lower())
    for word in words:
        yield "w:" + word, WORD_WEIGHT
        padded = f"#{word}#"
        for i in range(len(padded) - 2):
            yield "c:" + padded[i : i + 3], TRIGRAM_WEIGHT
    for first, second in pairwise(words):
        yield f"p:{first} {second}", PAIR_WEIGHT


@lru_cache(maxsize=2048)
def embed(model: str, text: str, dimensions: int, seed: int) -> tuple[float, ...]:
    """The unit vector of `text` in `dimensions` dimensions (memoised: a retriever embeds its
    documents and queries again and again). Only the dimensions a feature lands on are summed and
    scaled (`math.fsum` is exact, so the zeros left out change no bit of the norm)."""
    salt = f"{seed}:{model}:{dimensions}:"
    landed: dict[int, float] = {}
    get = landed.get
    digest = xxhash.xxh64_intdigest
    for feature, weight in features(text):
        hashed = digest((salt + feature).encode())
        at = hashed % dimensions
        landed[at] = get(at, 0.0) + (weight if hashed >> 63 else -weight)
    norm = math.sqrt(math.fsum(value * value for value in landed.values()))
    if norm == 0.0:
        fallback = xxhash.xxh64_intdigest((salt + text).encode()) % dimensions
        return tuple(1.0 if i == fallback else 0.0 for i in range(dimensions))
    vector = [0.0] * dimensions
    for at, value in landed.items():
        vector[at] = value / norm
    return tuple(vector)


def unit(vector: Sequence[float], fallback: int = 0) -> tuple[float, ...]:
    """The vector scaled to length 1; a zero vector (a text with no words) is the unit vector
    along `fallback`."""
    norm = math.sqrt(math.fsum(value * value for value in vector))
    if norm == 0.0:
        return tuple(1.0 if i == fallback else 0.0 for i in range(len(vector)))
    return tuple(value / norm for value in vector)


def fitted(vector: Sequence[float], dimensions: int) -> tuple[float, ...]:
    """A scripted vector cut (or padded with zeros) to `dimensions`, then made unit length, as
    OpenAI shortens its embeddings; one already of that length and unit (a recorded one) as it is."""
    if len(vector) == dimensions and abs(math.fsum(v * v for v in vector) - 1.0) < 1e-6:
        return tuple(vector)
    cut = list(vector[:dimensions]) + [0.0] * max(0, dimensions - len(vector))
    return unit(cut)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine similarity of two unit vectors."""
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def relevance(query: Sequence[float], document: Sequence[float]) -> float:
    """A rerank relevance score in [0, 1] from the cosine of query and document (negative
    cosines, rare for texts sharing nothing, score 0)."""
    return round(max(0.0, cosine(query, document)), 8)


def base64_floats(vector: Sequence[float]) -> str:
    """The vector as OpenAI's `base64` encoding: little-endian float32, base64."""
    return b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
