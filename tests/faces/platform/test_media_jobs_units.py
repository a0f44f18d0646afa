"""Imagen and video jobs billed in ZenMux's units (issue 38, item 5): Imagen per image made (google-genai's
`generate_images`), video per second at its resolution when the job is submitted (ZenMux's native
`POST /api/v1/videos` over raw HTTP, Veo through google-genai's `generate_videos`); a filtered image
or a failed job is not billed, and a spent balance answers the submission 402. The Platform API (raw
HTTP) shows them in the generation lookup, usage's `countsByMedia`, cost and the balance."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from google import genai
from google.genai import errors, types

from tests.conftest import API_KEY, MakeServer
from tests.faces.platform.test_media_units import MONTH, fee, lookup, management
from tests.faces.videos.helpers import MODEL, VEO, advance, send
from tests.support.clients import Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

pytestmark = pytest.mark.filterwarnings("ignore:The generate_images method is deprecated")

IMAGEN, ULTRA = "google/imagen-4.0-generate-001", "google/imagen-4.0-ultra-generate-001"
SCENARIO = """\
rules:
  - name: filtered
    match: {api: imagen, last_user: {contains: forbidden}}
    reply: {refusal: "The prompt could not be submitted."}
  - name: failed
    match: {api: videos, last_user: {contains: forbidden}}
    reply: {video: {fails: "The prompt was flagged by the content filter"}}
"""


def gemini(server: EmulatorServer, key: str = API_KEY) -> genai.Client:
    options = types.HttpOptions(base_url=server.url("vertex"), api_version="v1")
    return genai.Client(api_key=key, vertexai=True, http_options=options)


def images(client: genai.Client, prompt: str, model: str = IMAGEN, **config: Any) -> types.GenerateImagesResponse:
    return client.models.generate_images(model=model, prompt=prompt, config=types.GenerateImagesConfig(**config))


def generations(server: EmulatorServer, api: str) -> list[str]:
    """The generation ids of the face's answers, oldest first, as the journal kept their headers
    (google-genai does not hand `generate_images`' headers back)."""
    entries = send(server, "/_emulator/journal").json()
    listed = entries["entries"] if isinstance(entries, dict) else entries
    found = [e for e in listed if e["api"] == api and e["status"] == 200]
    return [e["response_headers"]["x-generation-id"] for e in sorted(found, key=lambda e: e["seq"])]


def submit(server: EmulatorServer, text: str, key: str = API_KEY, **more: Any) -> Raw:
    """ZenMux's native submission with `key`."""
    body = orjson.dumps({"model": MODEL, "content": [{"type": "text", "text": text}], **more})
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    return http(f"{server.origin}/api/v1/videos", body, method="POST", headers=headers)


def media(server: EmulatorServer) -> dict[str, dict[str, Any]]:
    usage = management(server, f"usage?type=usage&{MONTH}")["data"]
    return {row["modelSlug"]: row for row in usage["countsByMedia"]}


def test_imagen_is_billed_per_image_made_at_its_model_s_price(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    client = gemini(server)
    two = images(client, "a lighthouse", number_of_images=2)
    ultra = images(client, "a lighthouse", ULTRA, aspect_ratio="16:9")
    filtered = images(client, "something forbidden", number_of_images=3)
    assert two.generated_images is not None and len(two.generated_images) == 2
    assert not filtered.generated_images and ultra.generated_images is not None and len(ultra.generated_images) == 1
    two_id, ultra_id, filtered_id = generations(server, "imagen")
    standard = fee(lookup(server, two_id), "image")
    assert (standard["quantity"], standard["rate"], standard["unit"]) == (2, 0.04, "perCount")
    assert lookup(server, two_id)["usage"] == pytest.approx(0.08)
    assert (fee(lookup(server, ultra_id), "image")["rate"]) == 0.06
    assert lookup(server, ultra_id)["usage"] == pytest.approx(0.06)
    nothing = lookup(server, filtered_id)
    assert nothing["usage"] == 0 and not [
        d for d in nothing["ratingResponses"]["ratingDetails"] if d["feeItemCode"] == "image"
    ]
    counted = media(server)
    assert (counted[IMAGEN]["counts"], counted[IMAGEN]["requestCounts"]) == ("2", "2")  # the filtered one is a request
    assert management(server, "payg/balance")["data"]["total_credits"] == pytest.approx(100.0 - 0.08 - 0.06, abs=1e-6)


def test_a_native_video_job_is_billed_per_second_at_its_resolution_when_submitted(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    small = submit(server, "a cat reading", resolution="720p", duration=5)
    large = submit(server, "a cat reading", resolution="1080p", duration=2)
    failed = submit(server, "something forbidden", resolution="1080p", duration=10)
    assert (small.status, large.status, failed.status) == (200, 200, 200), small.text
    seconds = fee(lookup(server, small.headers["x-generation-id"]), "video")
    assert (seconds["quantity"], seconds["rate"], seconds["unit"]) == (5, 0.02592, "perSecond")
    assert lookup(server, small.headers["x-generation-id"])["usage"] == pytest.approx(5 * 0.02592)
    assert fee(lookup(server, large.headers["x-generation-id"]), "video")["rate"] == 0.05832
    assert lookup(server, failed.headers["x-generation-id"])["usage"] == 0
    counted = media(server)[MODEL]
    assert (counted["seconds"], counted["requestCounts"]) == ("7.000", "3")  # the failed one is a request
    advance(server, 60)  # the jobs end; polling bills nothing more
    assert send(server, f"/api/v1/videos/{failed.json()['id']}").json()["status"] == "failed"
    assert send(server, f"/api/v1/videos/{small.json()['id']}").json()["status"] == "succeeded"
    summary = management(server, f"cost?type=cost&{MONTH}")["data"]["summary"]
    assert float(summary["otherCost"]) == pytest.approx(5 * 0.02592 + 2 * 0.05832)


def test_veo_jobs_are_billed_per_second_of_every_video(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    client = gemini(server)
    config = types.GenerateVideosConfig(duration_seconds=4, number_of_videos=2, resolution="1080p")
    made = client.models.generate_videos(model=VEO, source=types.GenerateVideosSource(prompt="a boat"), config=config)
    refused = client.models.generate_videos(
        model=VEO, source=types.GenerateVideosSource(prompt="a forbidden boat"), config=config
    )
    assert made.name and refused.name
    counted = media(server)[VEO]
    assert (counted["seconds"], counted["requestCounts"]) == ("8.000", "2")
    assert management(server, "payg/balance")["data"]["total_credits"] == pytest.approx(100.0 - 8 * 0.20, abs=1e-6)


def test_a_spent_balance_answers_the_job_s_submission_402(make_server: MakeServer) -> None:
    server = make_server(SCENARIO + "settings: {balances: {sk-small: 1.0}}\n")
    client = gemini(server, "sk-small")
    config = types.GenerateVideosConfig(duration_seconds=8)
    first = client.models.generate_videos(model=VEO, source=types.GenerateVideosSource(prompt="a boat"), config=config)
    assert first.name
    with pytest.raises(errors.ClientError) as refused:
        client.models.generate_videos(model=VEO, source=types.GenerateVideosSource(prompt="a boat"), config=config)
    assert refused.value.code == 402
    assert submit(server, "a cat", key="sk-small").status == 402
    advance(server, 60)  # the job made before the balance ran out still finishes
    assert client.operations.get(first).done
    assert submit(server, "a cat").status == 200
