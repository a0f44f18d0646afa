"""An embeddings request: checked as ZenMux documents it, and read by the core like any other.

Rules match an embeddings request on its inputs: `last_user` is the last input, `any_message` any
of them (token arrays read as their numbers, space separated)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.faces.common.inputs import InputsRequest, model_and_input
from zenmux_emulator.faces.embeddings.models import DIMENSIONS, MAX_INPUT_TOKENS, MAX_REQUEST_TOKENS
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.errors import invalid_params

MAX_INPUTS = 2048
MAX_VALUES = MAX_INPUTS * 1536
"""The most numbers one reply carries (inputs × dimensions): 2,048 inputs at text-embedding-3-small's
1,536 dimensions. Past it, a 400: 2,048 × "hi" at 3,072 dimensions, a 16 kB request, answered 25 MB."""
ENCODINGS = ("float", "base64")
FIELDS = frozenset({"input", "model", "encoding_format", "dimensions", "user"})


class EmbeddingsRequest(InputsRequest):
    face = "embeddings"

    def __init__(
        self,
        body: Mapping[str, Any],
        headers: Mapping[str, str],
        inputs: tuple[str, ...],
        counts: tuple[int, ...],
        dimensions: int,
        encoding: str,
        warnings: tuple[str, ...],
    ) -> None:
        super().__init__(body, headers, model=body["model"], warnings=warnings)
        self.inputs = inputs
        """Every input as text (a token array as its numbers), in order."""
        self.counts = counts
        """Each input's tokens."""
        self.dimensions = dimensions
        self.encoding = encoding
        self.prepared: dict[str, Any] | None = None
        """Each distinct input's computed vector as the reply writes it, when made in advance (the face's `prepare`)."""

    @cached
    def last_user(self) -> str:
        return self.inputs[-1]

    @cached
    def texts(self) -> tuple[str, ...]:
        return self.inputs

    @cached
    def prompt_tokens(self) -> int:
        return sum(self.counts)


def _token_text(value: list[Any], where: str) -> str:
    if not value:
        raise invalid_params(f"Parameter {where} is not valid: expected a non-empty array of token integers")
    for i, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int) or item < 0:
            raise invalid_params(f"Parameter {where}[{i}] is not valid: expected a non-negative integer token")
    return " ".join(map(str, value))


def _inputs(value: object) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The inputs as texts and their token counts: a string, strings, tokens, or token arrays."""
    if isinstance(value, str):
        items: list[object] = [value]
    elif isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        text = _token_text(value, "input")
        return (text,), (len(value),)
    elif isinstance(value, list):
        items = value
    else:
        raise invalid_params("Parameter input is not valid: expected a string or an array")
    if not items:
        raise invalid_params("Parameter input is not valid: expected at least one input")
    if len(items) > MAX_INPUTS:
        raise invalid_params(f"Parameter input is not valid: at most {MAX_INPUTS} inputs, got {len(items)}")
    texts: list[str] = []
    counts: list[int] = []
    for i, item in enumerate(items):
        where = "input" if isinstance(value, str) else f"input[{i}]"
        if isinstance(item, str):
            if not item:
                raise invalid_params(f"Parameter {where} is not valid: expected a non-empty string")
            texts.append(item)
            counts.append(tokens.count(item, MAX_INPUT_TOKENS))
        elif isinstance(item, list):
            texts.append(_token_text(item, where))
            counts.append(len(item))
        else:
            raise invalid_params(f"Parameter {where} is not valid: expected a string or an array of token integers")
        if counts[-1] > MAX_INPUT_TOKENS:
            raise invalid_params(f"Parameter {where} is not valid: at most {MAX_INPUT_TOKENS} tokens per input")
    if sum(counts) > MAX_REQUEST_TOKENS:
        raise invalid_params(f"Parameter input is not valid: at most {MAX_REQUEST_TOKENS} tokens in all")
    return tuple(texts), tuple(counts)


def parse_request(body: object, headers: Mapping[str, str]) -> EmbeddingsRequest:
    """Validate the body (400 `invalid_params` naming the field) and read it."""
    body, full = model_and_input(body, DIMENSIONS, "an embedding")
    inputs, counts = _inputs(body["input"])
    encoding = body.get("encoding_format") or "float"
    if encoding not in ENCODINGS:
        raise invalid_params("Parameter encoding_format is not valid: expected 'float' or 'base64'")
    dimensions = body.get("dimensions")
    dimensions = full if dimensions is None else dimensions
    if isinstance(dimensions, bool) or not isinstance(dimensions, int) or not 1 <= dimensions <= full:
        raise invalid_params(f"Parameter dimensions is not valid: expected an integer between 1 and {full}")
    if len(inputs) * dimensions > MAX_VALUES:
        where = "dimensions" if body.get("dimensions") is not None else "input"
        raise invalid_params(
            f"Parameter {where} is not valid: {len(inputs)} inputs of {dimensions} dimensions are "
            f"{len(inputs) * dimensions} numbers, more than the {MAX_VALUES} ({MAX_INPUTS} x 1536) the "
            "emulator answers at once; send fewer inputs or ask for fewer dimensions"
        )
    user = body.get("user")
    if user is not None and not isinstance(user, str):
        raise invalid_params("Parameter user is not valid: expected a string")
    unknown = sorted(set(body) - FIELDS)
    warnings = tuple(f"{name}: not an embeddings parameter; ignored" for name in unknown)
    return EmbeddingsRequest(body, headers, inputs, counts, dimensions, encoding, warnings)
