"""Reading a media request's fields, whether it came as JSON or as a form (whose values are text):
each reader answers ZenMux's 400 naming the field."""

from __future__ import annotations

import base64
import binascii
import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

import orjson

from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

EXTRA = "media"
"""The optional extra the encoders come with: `pip install 'zenmux-emulator[media]'`."""


def encoder(module: str, purpose: str, extra: str = EXTRA) -> ModuleType:
    """An encoding library of the `media` extra (or `extra`), imported on first use (a text-only
    server never loads it); missing, a 501 in the face's envelope that says what to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise RequestRejected(
            501,
            "not_implemented",
            f"The emulator cannot make {purpose} without the {module.split('.')[0]} package: "
            f"install it with pip install 'zenmux-emulator[{extra}]'",
        ) from None


def body_object(body: object) -> Mapping[str, Any]:
    if not isinstance(body, dict):
        raise invalid_params("Request body is not valid: expected a JSON object or a multipart form")
    return body


def text(body: Mapping[str, Any], field: str, default: str | None = None, required: bool = False) -> str | None:
    value = body.get(field)
    if value is None or value == "":
        if required:
            raise invalid_params(f"Parameter {field} is required")
        return default
    if not isinstance(value, str):
        raise invalid_params(f"Parameter {field} is not valid: expected a string")
    return value


def choice(body: Mapping[str, Any], field: str, allowed: Sequence[str], default: str) -> str:
    value = text(body, field, default)
    assert value is not None
    if value not in allowed:
        raise invalid_params(f"Parameter {field} is not valid: expected one of {', '.join(allowed)}, got {value!r}")
    return value


def _number(body: Mapping[str, Any], field: str, kind: str) -> float | None:
    value = body.get(field)
    if value is None or value == "":
        return None
    if isinstance(value, str):  # a form's field
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            raise invalid_params(f"Parameter {field} is not valid: expected {kind}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise invalid_params(f"Parameter {field} is not valid: expected {kind}")
    return float(value)


def integer(body: Mapping[str, Any], field: str, low: int, high: int, default: int) -> int:
    value = _number(body, field, "an integer")
    if value is None:
        return default
    if not value.is_integer() or not low <= value <= high:
        raise invalid_params(f"Parameter {field} is not valid: expected an integer between {low} and {high}")
    return int(value)


def number(body: Mapping[str, Any], field: str, low: float, high: float, default: float) -> float:
    value = _number(body, field, "a number")
    if value is None:
        return default
    if not low <= value <= high:
        raise invalid_params(f"Parameter {field} is not valid: expected a number between {low} and {high}")
    return value


def flag(body: Mapping[str, Any], field: str) -> bool:
    value = body.get(field)
    if value is None or value is False or value in ("false", "False", "0", ""):
        return False
    if value is True or value in ("true", "True", "1"):
        return True
    raise invalid_params(f"Parameter {field} is not valid: expected a boolean")


def strings(body: Mapping[str, Any], field: str) -> tuple[str, ...]:
    """A list of strings: a JSON array, or a form's repeated `field[]` (or `field`) parts."""
    value = body.get(f"{field}[]", body.get(field))
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(item, str) for item in items):
        raise invalid_params(f"Parameter {field} is not valid: expected an array of strings")
    return tuple(items)


def model(body: Mapping[str, Any], models: Mapping[str, object], default: str | None, kind: str) -> tuple[str, str]:
    """The model as sent and its catalogue id: a bare id (`gpt-image-2`) reads as its vendor's."""
    sent = text(body, "model", default, required=default is None)
    assert sent is not None
    base, colon, provider = sent.partition(":")
    if base not in models:
        bare = [known for known in models if known.split("/", 1)[1] == base]
        if not bare:
            raise invalid_params(f"Model {sent} is not valid: not {kind} model ({', '.join(models)})")
        base = bare[0]
    return sent, base + colon + provider


def event(value: Mapping[str, Any], name: str | None = None) -> bytes:
    """One SSE event: its `data:` line, after an `event:` line when named."""
    head = b"" if name is None else b"event: " + name.encode() + b"\n"
    return head + b"data: " + orjson.dumps(value) + b"\n\n"


DONE = b"data: [DONE]\n\n"


def ignored(body: Mapping[str, Any], known: frozenset[str], api: str) -> tuple[str, ...]:
    """A warning for each field the face does not read (said back in `X-Emulator-Warnings`)."""
    return tuple(f"{name}: not {api} parameter; ignored" for name in sorted(set(body) - known))


def data_uri(url: str, where: str) -> bytes | None:
    """The content of a base64 data URI (`data:<mime>;base64,…`); None when `url` is not one, 400
    naming `where` when its content is not base64."""
    if not url.startswith("data:") or ";base64," not in url:
        return None
    try:
        return base64.b64decode(url.partition(";base64,")[2], validate=True)
    except binascii.Error:
        raise invalid_params(f"Parameter {where} is not valid: not base64") from None
