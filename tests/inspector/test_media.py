"""The inspector's media view (issue 38, item 5), in headless Chromium against a real server: an images
request's pictures are shown as thumbnails that load, a speech request's audio has a player with a
duration, both served from the emulator's own origin (`/_emulator/ui/media/…`) within the page's
policy; ZenMux's speech JSON and its stream, raw PCM included, are played as WAV; nothing is
listed for a text reply, and no type a browser would run is served."""

from __future__ import annotations

import io
import json
import urllib.request
import wave
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from google import genai
from google.genai import types
from PIL import Image
from playwright.sync_api import Page, expect

from tests.conftest import served_yaml
from tests.support.clients import API_KEY, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

SCENARIO = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: Hello from the emulator}
"""
MEDIA = "/_emulator/ui/media"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("inspector-media"), SCENARIO) as started:
        yield started


def journal(server: EmulatorServer, session: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = http(f"{server.origin}/_emulator/journal?session={session}").json()["entries"]
    return entries


def last_seq(server: EmulatorServer, session: str) -> int:
    seq: int = journal(server, session)[-1]["seq"]
    return seq


def listed(server: EmulatorServer, seq: int) -> list[dict[str, Any]]:
    answer = http(f"{server.origin}{MEDIA}/{seq}")
    assert answer.status == 200, answer.text
    media: list[dict[str, Any]] = answer.json()["media"]
    return media


def piece(server: EmulatorServer, seq: int, index: int) -> bytes:
    """One piece's bytes, as the page's `<img>` or `<audio>` loads them."""
    with urllib.request.urlopen(f"{server.origin}{MEDIA}/{seq}/{index}", timeout=30) as answer:
        assert answer.status == 200
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        body: bytes = answer.read()
    return body


def open_response(page: Page, seq: int) -> None:
    page.locator(f"#requests tbody tr[data-seq='{seq}']").click()
    expect(page.locator("#detail-title")).to_contain_text(f"#{seq}")
    page.click("#tabs [data-tab=response]")


def test_an_images_entry_shows_its_pictures_and_a_speech_entry_plays_its_audio(
    server: EmulatorServer, visit: Any
) -> None:
    with sdk(server, "pictures") as client:
        client.images.generate(model="openai/gpt-image-2", prompt="a red kite", n=2, size="1024x1024")
    pictures = last_seq(server, "pictures")
    with sdk(server, "spoken") as client:
        spoken = client.audio.speech.create(
            model="openai/gpt-4o-mini-tts",
            voice="alloy",
            input="Read this sentence aloud, please.",
            response_format="wav",
        )
    audio = spoken.content
    speech = last_seq(server, "spoken")
    assert [(m["kind"], m["content_type"]) for m in listed(server, pictures)] == [("image", "image/png")] * 2
    assert Image.open(io.BytesIO(piece(server, pictures, 1))).size == (1024, 1024)
    assert piece(server, speech, 0) == audio

    shown = visit(server.origin)
    page = shown.open()
    open_response(page, pictures)
    thumbs = page.locator("#tab-body .media img.thumb")
    expect(thumbs).to_have_count(2)
    for index in range(2):
        page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=thumbs.nth(index).element_handle())
        assert thumbs.nth(index).evaluate("(img) => img.naturalWidth") == 1024
    open_response(page, speech)
    player = page.locator("#tab-body .media audio")
    expect(player).to_have_count(1)
    page.wait_for_function(
        "(a) => a.readyState >= 1 && Number.isFinite(a.duration) && a.duration > 0", arg=player.element_handle()
    )
    with wave.open(io.BytesIO(audio)) as read:
        seconds = read.getnframes() / read.getframerate()
    assert player.evaluate("(a) => a.duration") == pytest.approx(seconds, abs=0.05)
    assert shown.foreign() == []
    assert any(url.startswith(f"{server.origin}{MEDIA}/{pictures}/") for url in shown.requested)


def test_a_streamed_image_shows_the_completed_picture_not_its_partials(server: EmulatorServer, visit: Any) -> None:
    with sdk(server, "streamed") as client:
        events = list(
            client.images.generate(
                model="openai/gpt-image-2", prompt="a blue kite", size="1536x1024", stream=True, partial_images=2
            )
        )
    assert [event.type for event in events].count("image_generation.partial_image") == 2
    seq = last_seq(server, "streamed")
    assert [m["kind"] for m in listed(server, seq)] == ["image"]
    page = visit(server.origin).open()
    open_response(page, seq)
    thumb = page.locator("#tab-body .media img.thumb")
    expect(thumb).to_have_count(1)
    page.wait_for_function("(img) => img.complete && img.naturalWidth > 0", arg=thumb.element_handle())
    assert thumb.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [1536, 1024]


def test_zenmux_s_speech_json_and_its_stream_play_as_wav(server: EmulatorServer) -> None:
    def post(body: dict[str, Any]) -> int:
        answer = http(
            f"{server.base_url}/audio/speech",
            json.dumps(body).encode(),
            method="POST",
            headers={
                "Authorization": f"Bearer {API_KEY}",
                "Content-Type": "application/json",
                "X-Emulator-Session": "zen",
            },
        )
        assert answer.status == 200, answer.text
        return last_seq(server, "zen")

    whole = post({"model": "google/gemini-3.1-flash-tts-preview", "input": "A short sentence.", "voice": "Kore"})
    streamed = post(
        {"model": "google/gemini-3.1-flash-tts-preview", "input": "A short sentence.", "voice": "Kore", "stream": True}
    )
    for seq in (whole, streamed):
        [only] = listed(server, seq)
        assert (only["kind"], only["content_type"]) == ("audio", "audio/wav")
    played = [piece(server, seq, 0) for seq in (whole, streamed)]
    assert played[0] == played[1]  # the deltas joined are the JSON's audio
    with wave.open(io.BytesIO(played[0])) as read:
        assert read.getframerate() == 24_000 and read.getnframes() > 0


def test_a_text_reply_lists_no_media_and_unknown_places_are_404(server: EmulatorServer) -> None:
    with sdk(server, "words") as client:
        client.chat.completions.create(model="openai/gpt-5", messages=[{"role": "user", "content": "hello"}])
    seq = last_seq(server, "words")
    assert listed(server, seq) == []
    assert http(f"{server.origin}{MEDIA}/{seq}/0").status == 404
    assert http(f"{server.origin}{MEDIA}/999999").status == 404
    assert http(f"{server.origin}{MEDIA}/x").status == 400


def test_the_page_s_policy_lets_media_come_from_its_own_origin_only(server: EmulatorServer) -> None:
    policy = http(f"{server.origin}/_emulator/ui/").headers["content-security-policy"]
    assert "media-src 'self'" in policy and "default-src 'none'" in policy


def test_a_video_jobs_download_plays_as_a_video(server: EmulatorServer, visit: Any) -> None:
    headers = {"Authorization": f"Bearer {API_KEY}", SESSION_HEADER: "filmed"}
    asked = {"model": "bytedance/doubao-seedance-2.0", "content": [{"type": "text", "text": "a paper boat"}]}
    with httpx.Client(headers=headers, timeout=60) as client:
        made = client.post(
            f"{server.base_url}/videos", json={**asked, "resolution": "720p", "ratio": "16:9", "duration": 4}
        )
        assert made.status_code == 200, made.text
        assert client.post(f"{server.origin}/_emulator/clock", json={"advance": 60}).status_code == 200
        done = client.get(f"{server.base_url}/videos/{made.json()['id']}").json()
        film = client.get(done["content"]["video_url"]).content
    polled, filmed = [entry["seq"] for entry in journal(server, "filmed")][
        -2:
    ]  # the poll and the download: the job's session
    assert listed(server, polled) == []
    assert listed(server, filmed) == [{"index": 0, "kind": "video", "content_type": "video/mp4", "bytes": len(film)}]
    assert piece(server, filmed, 0) == film

    shown = visit(server.origin)
    page = shown.open()
    open_response(page, filmed)
    player = page.locator("#tab-body .media video")
    expect(player).to_have_count(1)
    page.wait_for_function(
        "(v) => v.readyState >= 1 && Number.isFinite(v.duration) && v.duration > 0", arg=player.element_handle()
    )
    assert player.evaluate("(v) => [v.videoWidth, v.videoHeight]") == [1280, 720]
    assert player.evaluate("(v) => v.duration") == pytest.approx(4, abs=0.1)
    assert shown.foreign() == []


def test_a_veo_operation_s_videos_play_on_its_done_poll(server: EmulatorServer, visit: Any) -> None:
    """Veo answers its videos inline, as base64 in the done operation: the journal keeps that answer
    as sent (it kept each video's length before), so its entry lists and plays them."""
    options = types.HttpOptions(base_url=server.url("vertex"), api_version="v1", headers={SESSION_HEADER: "veo"})
    client = genai.Client(api_key=API_KEY, vertexai=True, http_options=options)
    config = types.GenerateVideosConfig(duration_seconds=2, aspect_ratio="9:16", resolution="720p", number_of_videos=2)
    operation = client.models.generate_videos(
        model="google/veo-3.1-generate-001", source=types.GenerateVideosSource(prompt="a paper boat"), config=config
    )
    advanced = http(f"{server.origin}/_emulator/clock", b'{"advance": 60}', method="POST", headers=JSON)
    assert advanced.status == 200, advanced.text
    operation = client.operations.get(operation)
    assert operation.done and operation.response is not None and operation.response.generated_videos
    films = [made.video.video_bytes for made in operation.response.generated_videos if made.video]
    done = last_seq(server, "veo")
    assert listed(server, done) == [
        {"index": i, "kind": "video", "content_type": "video/mp4", "bytes": len(film or b"")}
        for i, film in enumerate(films)
    ]
    assert [piece(server, done, i) for i in range(2)] == films

    shown = visit(server.origin)
    page = shown.open()
    open_response(page, done)
    players = page.locator("#tab-body .media video")
    expect(players).to_have_count(2)
    page.wait_for_function("(v) => v.readyState >= 1 && v.duration > 0", arg=players.first.element_handle())
    assert players.first.evaluate("(v) => [v.videoWidth, v.videoHeight]") == [720, 1280]
    assert shown.foreign() == []
