"""The speech face through the official openai SDK and raw HTTP: wav the `wave` module reads, its
length growing with the text; mp3 frames; flac and opus soundfile decodes; ZenMux's JSON and SSE;
the same bytes for the same request; a rule's text read aloud; and the 400s."""

from __future__ import annotations

import base64
import io
import json
import urllib.request
import wave
from collections.abc import Iterator
from typing import Any

import openai
import pytest
import soundfile

from tests.conftest import served_yaml
from tests.support.clients import API_KEY, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MODEL = "openai/gpt-4o-mini-tts"
SCENARIO = """\
rules:
  - name: read-this
    match: {api: speech, last_user: {contains: "say the rule"}}
    reply: {content: "This is a much longer sentence that the rule wants read aloud instead of the input."}
  - name: busy
    match: {api: speech, last_user: {contains: busy}}
    reply: {error: {status: 429, message: "Slow down"}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("speech"), SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as made:
        yield made


def speak(client: openai.OpenAI, text: str, **options: Any) -> bytes:
    options = {"model": MODEL, "voice": "alloy", **options}
    return client.audio.speech.create(input=text, **options).content


def wav_seconds(data: bytes) -> float:
    with wave.open(io.BytesIO(data)) as read:
        assert (read.getnchannels(), read.getsampwidth(), read.getframerate()) == (1, 2, 24000)
        return read.getnframes() / read.getframerate()


def test_wav_opens_in_the_wave_module_and_lasts_longer_for_a_longer_text(client: openai.OpenAI) -> None:
    short = wav_seconds(speak(client, "Hello.", response_format="wav"))
    long = wav_seconds(speak(client, "Hello, and welcome to a much longer greeting.", response_format="wav"))
    assert 0.2 < short < long
    assert long > 5 * short


def mp3_frames(data: bytes) -> list[tuple[int, int]]:
    """Each MPEG audio frame's (bitrate kbps, sample rate) read from its header, walking frame to frame."""
    bitrates = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]  # MPEG-2 layer III
    rates = {0: 22050, 1: 24000, 2: 16000}
    at, frames = 0, []
    if data[:3] == b"ID3":
        at = 10 + ((data[6] << 21) | (data[7] << 14) | (data[8] << 7) | data[9])
    while at + 4 <= len(data):
        header = int.from_bytes(data[at : at + 4], "big")
        assert header >> 21 == 0x7FF, f"no frame sync at byte {at}"
        assert (header >> 19) & 3 == 2 and (header >> 17) & 3 == 1, "MPEG-2 layer III"
        bitrate, rate, padding = bitrates[(header >> 12) & 15], rates[(header >> 10) & 3], (header >> 9) & 1
        frames.append((bitrate, rate))
        at += 72 * bitrate * 1000 // rate + padding
    assert at == len(data)
    return frames


def test_mp3_is_a_run_of_frames_a_header_parser_walks(client: openai.OpenAI) -> None:
    frames = mp3_frames(speak(client, "Hello there, how are you?", response_format="mp3"))
    assert len(frames) > 10 and {rate for _, rate in frames} == {24000}
    decoded = soundfile.info(io.BytesIO(speak(client, "Hello there", response_format="mp3")))
    assert decoded.samplerate == 24000 and decoded.duration > 0.5


@pytest.mark.parametrize(("response_format", "subtype"), [("flac", "PCM_16"), ("opus", "OPUS")])
def test_flac_and_opus_decode(client: openai.OpenAI, response_format: str, subtype: str) -> None:
    data = speak(client, "Hello there", response_format=response_format)
    info = soundfile.info(io.BytesIO(data))
    assert info.subtype == subtype and 0.5 < info.duration < 1.0


def test_pcm_is_raw_samples_at_the_asked_speed(client: openai.OpenAI) -> None:
    normal = speak(client, "Hello there", response_format="pcm")
    fast = speak(client, "Hello there", response_format="pcm", speed=2.0)
    assert len(normal) % 2 == 0 and abs(len(fast) * 2 - len(normal)) < 64


def test_the_same_request_gives_the_same_bytes_and_the_voice_changes_them(client: openai.OpenAI) -> None:
    for response_format in ("mp3", "opus", "wav"):
        assert speak(client, "Same words", response_format=response_format) == speak(
            client, "Same words", response_format=response_format
        )
    assert speak(client, "Same words", response_format="wav") != speak(
        client, "Same words", response_format="wav", voice="onyx"
    )


def test_a_rules_content_is_what_is_read_and_its_error_the_answer(client: openai.OpenAI) -> None:
    read = wav_seconds(speak(client, "say the rule", response_format="wav"))
    assert read > 4  # the rule's 80 characters, not the input's 12
    with pytest.raises(openai.RateLimitError, match="Slow down"):
        speak(client, "busy now")


def test_zenmux_json_without_an_accept_for_bytes_and_its_stream(server: EmulatorServer) -> None:
    def post(body: dict[str, Any]) -> bytes:
        request = urllib.request.Request(
            server.base_url + "/audio/speech",
            data=json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json", "Accept": "*/*"},
        )
        with urllib.request.urlopen(request) as answer:
            read: bytes = answer.read()
        return read

    answer = json.loads(post({"model": "google/gemini-3.1-flash-tts-preview", "input": "Hi there", "voice": "Kore"}))
    assert answer["mime_type"] == "audio/L16;rate=24000"
    pcm = base64.b64decode(answer["audio"])
    assert len(pcm) == 2 * 24000 * 8 * 60 // 1000 and answer["usage"]["output_tokens"] > 0
    streamed = post(
        {"model": "google/gemini-3.1-flash-tts-preview", "input": "Hi there", "voice": "Kore", "stream": True}
    )
    events = [line.removeprefix(b"data: ") for line in streamed.split(b"\n\n") if line]
    assert events[-1] == b"[DONE]"
    parsed = [json.loads(e) for e in events[:-1]]
    assert parsed[-1]["type"] == "speech.audio.done"
    assert b"".join(base64.b64decode(e["audio"]) for e in parsed[:-1]) == pcm


def test_the_sdks_sse_stream_format(client: openai.OpenAI) -> None:
    with client.audio.speech.with_streaming_response.create(
        model=MODEL, voice="alloy", input="Hello", response_format="wav", stream_format="sse"
    ) as answer:
        body = answer.read()
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert b"speech.audio.delta" in body and body.endswith(b"data: [DONE]\n\n")


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"voice": "nobody"}, "unknown voice"),
        ({"response_format": "aac"}, "aac"),
        ({"response_format": "ogg"}, "response_format"),
        ({"speed": 9}, "speed"),
        ({"model": "openai/gpt-image-2"}, "gpt-image-2"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: openai.OpenAI, options: dict[str, Any], field: str) -> None:
    with pytest.raises(openai.BadRequestError, match=field):
        speak(client, "Hello", **options)
