"""Vertex AI's Veo jobs (ZenMux's api/vertexai/generate-videos.md) as google-genai's
`models.generate_videos` and `operations.get` call them: `POST …/models/{model}:predictLongRunning`
with `instances[0]` (`prompt`, `image`, `lastFrame`, `video`, `referenceImages`, `mask`) and
`parameters` (`sampleCount`, `durationSeconds`, `aspectRatio`, `resolution`, `seed`, …) answers the
operation's `name` (`publishers/{p}/models/{m}/operations/{id}`); `POST …/models/{model}:fetchPredictOperation`
with `{"operationName": name}` answers it, `done` with `response.videos[]` once the job is."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping
from typing import Any

from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.faces.media import fields
from zenmux_emulator.faces.videos.models import OFFERS
from zenmux_emulator.faces.videos.request import VideoRequest, media_bytes, request_seed, shape_of
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

MAX_SAMPLES = 4
INSTANCE_MEDIA = ("image", "lastFrame", "video", "mask")
PARAMETERS = frozenset(
    {
        "sampleCount", "durationSeconds", "aspectRatio", "resolution", "seed", "fps", "personGeneration",
        "negativePrompt", "enhancePrompt", "generateAudio", "compressionQuality", "storageUri", "pubsubTopic",
    }
)  # fmt: skip


def resource(params: Mapping[str, str]) -> str:
    """The model's resource name as the URL gave it, after the version: an operation's name starts
    with it, so google-genai's `operations.get` polls the same path form."""
    model = f"publishers/{params['provider']}/models/{params['name']}"
    if "project" in params:
        return f"projects/{params['project']}/locations/{params['location']}/{model}"
    return model


def model_of(params: Mapping[str, str]) -> str:
    return f"{params['provider']}/{params['name']}"


def _medium(value: object, where: str) -> bytes:
    """An image or video of the instance: `{bytesBase64Encoded | gcsUri, mimeType}` (a URI not fetched)."""
    if not isinstance(value, dict):
        raise invalid_params(f"Parameter {where} is not valid: expected an object with bytesBase64Encoded or gcsUri")
    if isinstance(value.get("gcsUri"), str):
        return str(value["gcsUri"]).encode()
    encoded = value.get("bytesBase64Encoded")
    if not isinstance(encoded, str):
        raise invalid_params(f"Parameter {where}.bytesBase64Encoded is required (or gcsUri)")
    return media_bytes(f"data:;base64,{encoded}", f"{where}.bytesBase64Encoded")


def _inputs(instance: Mapping[str, Any]) -> bytes:
    """The digest of the instance's media, b"" when it has none."""
    media = hashlib.sha256()
    given = 0
    for name in INSTANCE_MEDIA:
        if instance.get(name) is not None:
            media.update(name.encode() + hashlib.sha256(_medium(instance[name], f"instances[0].{name}")).digest())
            given += 1
    references = instance.get("referenceImages")
    references = [] if references is None else references
    if not isinstance(references, list):
        raise invalid_params("Parameter instances[0].referenceImages is not valid: expected an array")
    for index, reference in enumerate(references):
        where = f"instances[0].referenceImages[{index}]"
        image = reference.get("image") if isinstance(reference, dict) else None
        media.update(hashlib.sha256(_medium(image, f"{where}.image")).digest())
        given += 1
    return media.digest() if given else b""


def _instance(body: Mapping[str, Any]) -> Mapping[str, Any]:
    instances = body.get("instances")
    if not isinstance(instances, list) or not instances:
        raise invalid_params("Parameter instances is required: an array of one instance")
    if len(instances) > 1:
        raise invalid_params("Parameter instances is not valid: one instance a request")
    if not isinstance(instances[0], dict):
        raise invalid_params("Parameter instances[0] is not valid: expected an object")
    return instances[0]


def parse_veo(body: object, ctx: FaceContext) -> VideoRequest:
    """A `:predictLongRunning` body, checked (400 naming the field, `parameters.` before a parameter)."""
    body = fields.body_object(body)
    model = model_of(ctx.params)
    if model not in OFFERS:
        raise invalid_params(f"Model {model} is not valid: not a video model ({', '.join(OFFERS)})")
    instance = _instance(body)
    prompt = instance.get("prompt") or ""
    if not isinstance(prompt, str):
        raise invalid_params("Parameter instances[0].prompt is not valid: expected a string")
    parameters = body.get("parameters", {})
    if not isinstance(parameters, dict):
        raise invalid_params("Parameter parameters is not valid: expected an object")
    try:
        shape = shape_of(parameters, OFFERS[model], ("resolution", "aspectRatio", "durationSeconds"))
        count = fields.integer(parameters, "sampleCount", 1, MAX_SAMPLES, 1)
        seed = request_seed(parameters, "seed")
        fields.flag(parameters, "generateAudio")
    except RequestRejected as refused:  # the readers name the parameter alone: say where it is
        raise invalid_params(refused.message.replace("Parameter ", "Parameter parameters.", 1)) from None
    inputs = _inputs(instance)
    if not prompt and not inputs:
        raise invalid_params("Parameter instances[0].prompt is required (or an image or video)")
    unread = tuple(f"parameters.{name}: not a Veo parameter; ignored" for name in sorted(set(parameters) - PARAMETERS))
    return VideoRequest(
        body,
        ctx.headers,
        model,
        sent=model,
        prompt=prompt,
        shape=shape,
        count=count,
        seed=seed,
        inputs_digest=inputs,
        warnings=unread,
    )


def encoded(video: bytes) -> dict[str, str]:
    """One of `response.videos[]`: the MP4 inline, as google-genai reads it (`video.video_bytes`)."""
    return {"bytesBase64Encoded": base64.b64encode(video).decode(), "mimeType": "video/mp4"}
