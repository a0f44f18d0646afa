"""The media a journal entry's reply carried, for the inspector's media view: pictures (`b64_json`,
Gemini's `inlineData`, Imagen's `bytesBase64Encoded`), audio (a body of audio bytes, ZenMux's
speech JSON and its streamed deltas) and video, found by their wire shapes, never by the face's name.

The page shows them from this origin within its policy (no `data:` URL for audio or video): it lists
an entry's pieces (`GET /_emulator/ui/media/{seq}`) and loads each by its place
(`/_emulator/ui/media/{seq}/{index}`). At most `MAX_PIECES` are listed, each served only in a type a
browser shows as an image, a sound or a video, never one it would run."""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

MAX_PIECES = 16
"""Pieces listed for one entry (ten images with their partial images are more: the partials are not shown)."""
SHOWN = ("image/", "audio/", "video/")
"""The types served: a piece of any other type (a scripted raw body's HTML), or an SVG (which runs
scripts when opened), is not listed."""
DEPTH = 6
"""How deep into a JSON object the pieces are looked for (Gemini's `candidates[].content.parts[]`)."""
IMAGE_FORMATS = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
PCM_RATE = 24_000


@dataclass(frozen=True, slots=True)
class Piece:
    """One picture, sound or video of a reply."""

    content_type: str
    data: bytes

    @property
    def kind(self) -> str:
        return self.content_type.split("/", 1)[0]

    def listed(self, index: int) -> dict[str, Any]:
        return {"index": index, "kind": self.kind, "content_type": self.content_type, "bytes": len(self.data)}


def _decoded(text: Any) -> bytes | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def playable(content_type: str, data: bytes) -> Piece:
    """Raw 16-bit PCM (ZenMux's speech default, `audio/L16`) behind a WAV header, which a browser
    plays; anything else as it is (its type without parameters, lower-cased)."""
    head = content_type.split(";", 1)[0].strip().lower()
    if head not in ("audio/l16", "audio/pcm"):
        return Piece(head, data)
    rate = PCM_RATE
    for param in content_type.split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.lower() == "rate" and value.isdigit():
            rate = int(value)
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt "
    header += struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16) + b"data" + struct.pack("<I", len(data))
    return Piece("audio/wav", header + data)


def _own(value: Mapping[str, Any], image_type: str) -> Piece | None:
    """The piece an object carries itself (not in its children)."""
    inline = value.get("inlineData", value.get("inline_data"))
    if isinstance(inline, dict):
        data = _decoded(inline.get("data"))
        kind = inline.get("mimeType", inline.get("mime_type"))
        return Piece(kind, data) if data is not None and isinstance(kind, str) else None
    if "bytesBase64Encoded" in value:
        data = _decoded(value["bytesBase64Encoded"])
        kind = value.get("mimeType")
        return Piece(kind if isinstance(kind, str) else image_type, data) if data is not None else None
    if "b64_json" in value and not str(value.get("type", "")).endswith("partial_image"):
        data = _decoded(value["b64_json"])
        return Piece(image_type, data) if data is not None else None
    if isinstance(value.get("mime_type"), str) and "audio" in value:
        data = _decoded(value["audio"])
        return Piece(value["mime_type"], data) if data is not None else None
    return None


def _found(value: Any, image_type: str, depth: int = 0) -> Iterator[Piece]:
    if isinstance(value, list) and depth < DEPTH:
        for item in value:
            yield from _found(item, image_type, depth + 1)
    if not isinstance(value, dict):
        return
    fmt = value.get("output_format")
    image_type = IMAGE_FORMATS.get(fmt, image_type) if isinstance(fmt, str) else image_type
    piece = _own(value, image_type)
    if piece is not None:
        yield piece
        return
    if depth < DEPTH:
        for child in value.values():
            if isinstance(child, (dict, list)):
                yield from _found(child, image_type, depth + 1)


def _events(response: list[Any]) -> Iterator[tuple[bool, Any]]:
    """Each SSE event's JSON data, and whether it is a delta (a piece of one sound sent in parts)."""
    for event in response:
        if not isinstance(event, str):
            continue
        for line in event.splitlines():
            if not line.startswith("data:"):
                continue
            try:
                data = orjson.loads(line[5:].strip())
            except orjson.JSONDecodeError:
                continue
            if isinstance(data, dict):
                yield str(data.get("type", "")).endswith(".delta"), data


def _streamed(response: list[Any]) -> list[Piece]:
    """The pieces of a stream; a run of deltas of one type is one sound (joined before any header
    is put on it)."""
    pieces: list[Piece] = []
    joining = False
    for delta, data in _events(response):
        for piece in _found(data, "image/png"):
            if delta and joining and pieces and pieces[-1].content_type == piece.content_type:
                pieces[-1] = Piece(piece.content_type, pieces[-1].data + piece.data)
            else:
                pieces.append(piece)
            joining = delta
    return pieces


def pieces(entry: Mapping[str, Any], raw: bytes | None) -> list[Piece]:
    """An entry's pieces (at most `MAX_PIECES`): its body when that is audio, an image or a video
    (`raw`: its bytes as sent, when the journal holds them), else those its JSON or its events carry."""
    headers = entry.get("response_headers") or {}
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    response = entry.get("response")
    found: list[Piece] = []
    if raw is not None and content_type.lower().startswith(SHOWN):
        found = [Piece(content_type, raw)]
    elif isinstance(response, list):
        found = _streamed(response)
    elif isinstance(response, dict):
        found = list(_found(response, "image/png"))
    shown = (playable(piece.content_type, piece.data) for piece in found[:MAX_PIECES])
    return [piece for piece in shown if is_shown(piece.content_type) and piece.data]


def is_shown(content_type: str) -> bool:
    return content_type.startswith(SHOWN) and "svg" not in content_type and "xml" not in content_type
