"""A job as the openai SDK's `videos` resource sends and reads it (openai/resources/videos.py):
`create` posts a multipart form of `prompt`, `model`, `seconds`, `size` and an `input_reference`
file to the same `/videos`, and `retrieve` and `poll` read OpenAI's `Video` object, whose statuses
are `queued`, `in_progress`, `completed` and `failed` (its `poll` stops at any other, so ZenMux's
`running` would end it at once). A request with `prompt` and no `content` is this one, and its job
answers in this shape; `download_content` asks the same content route."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.media.form import Upload
from zenmux_emulator.faces.videos.film import Shape
from zenmux_emulator.faces.videos.jobs import Job, Stage
from zenmux_emulator.faces.videos.models import OFFERS
from zenmux_emulator.faces.videos.request import MAX_PROMPT, VideoRequest, media_bytes, offer_of
from zenmux_emulator.foundation.errors import invalid_params

FIELDS = frozenset({"model", "prompt", "seconds", "size", "input_reference"})
DEFAULT_SIZE = "720x1280"
DEFAULT_SECONDS = 4
EDGES = (64, 1920)
LIFETIME_S = 3600
"""How long a finished video's `expires_at` says it stays (OpenAI keeps its assets an hour)."""


def is_openai(body: object) -> bool:
    return isinstance(body, dict) and "prompt" in body and "content" not in body


def _size(body: Mapping[str, Any]) -> tuple[int, int]:
    text = fields.text(body, "size", DEFAULT_SIZE) or DEFAULT_SIZE
    width, x, height = text.partition("x")
    low, high = EDGES
    if not (x and width.isdigit() and height.isdigit()) or not all(
        low <= int(side) <= high and int(side) % 2 == 0 for side in (width, height)
    ):
        raise invalid_params(
            f"Parameter size is not valid: expected WIDTHxHEIGHT, even sides from {low} to {high} (720x1280, say)"
        )
    return int(width), int(height)


def _reference(body: Mapping[str, Any]) -> bytes:
    """The digest of `input_reference` (a file, or `{image_url}`), b"" without one."""
    given = body.get("input_reference")
    if given is None:
        return b""
    if isinstance(given, Upload):
        return hashlib.sha256(given.data).digest()
    if not isinstance(given, dict):
        raise invalid_params("Parameter input_reference is not valid: expected a file or {image_url}")
    url = given.get("image_url")
    return hashlib.sha256(media_bytes(url, "input_reference.image_url")).digest()


def parse_openai(body: Mapping[str, Any], headers: Mapping[str, str]) -> VideoRequest:
    sent, model = fields.model(body, OFFERS, None, "a video")
    prompt = fields.text(body, "prompt", required=True)
    assert prompt is not None
    if len(prompt) > MAX_PROMPT:
        raise invalid_params(f"Parameter prompt is not valid: at most {MAX_PROMPT} characters")
    offer = offer_of(model)
    seconds = fields.integer(body, "seconds", 1, offer.max_seconds, min(DEFAULT_SECONDS, offer.max_seconds))
    width, height = _size(body)
    return VideoRequest(
        body,
        headers,
        model,
        sent=sent,
        prompt=prompt,
        shape=Shape(width, height, seconds),
        seed=None,
        inputs_digest=_reference(body),
        openai=True,
        warnings=fields.ignored(body, FIELDS, "a video"),
    )


def video_object(job: Job, stage: Stage, now: float) -> dict[str, Any]:
    """OpenAI's `Video` for the job as it stands."""
    done = int(job.created + job.takes)
    body: dict[str, Any] = {
        "id": job.id,
        "object": "video",
        "created_at": int(job.created),
        "status": "queued",
        "model": job.model,
        "progress": 0,
        "prompt": job.prompt,
        "seconds": str(job.shape.seconds),
        "size": f"{job.shape.width}x{job.shape.height}",
        "completed_at": None,
        "expires_at": None,
        "error": None,
    }
    if stage == "running":
        body |= {"status": "in_progress", "progress": min(99, int(100 * (now - job.created) / job.takes))}
    elif stage == "done" and job.failure is not None:
        body |= {"status": "failed", "progress": 100, "error": {"code": "generation_failed", "message": job.failure}}
    elif stage == "done":
        body |= {"status": "completed", "progress": 100, "completed_at": done, "expires_at": done + LIFETIME_S}
    return body
