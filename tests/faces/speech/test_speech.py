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
from pathlib import Path
from typing import Any

import openai
import pytest
import soundfile
from PIL import Image

from tests.conftest import served_yaml
from tests.control.helpers import control, error_of
from tests.docs.pages import code_blocks, page
from tests.faces.media.attached import refused_on_reload
from tests.support.clients import API_KEY, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MODEL = "openai/gpt-4o-mini-tts"
SCENARIO = """\
rules:
  - name: read-this
    match: {api: speech, last_user: {contains: "say the rule"}}
    reply: {content: "This is a much longer sentence that the rule wants read aloud instead of the input."}
  - name: in-onyx-as-wav
    match: {api: speech, last_user: {contains: "in onyx"}}
    reply: {speech: {voice: onyx, format: wav}}
  - name: recorded-greeting
    match: {api: speech, last_user: {contains: "recorded greeting"}}
    reply: {speech: {file: sounds/greeting.wav}}
  - name: busy
    match: {api: speech, last_user: {contains: busy}}
    reply: {error: {status: 429, message: "Slow down"}}
"""


def greeting_wav() -> bytes:
    """A 1.5 s wav at 16 kHz, not what the emulator makes (24 kHz), so its bytes tell themselves apart."""
    out = io.BytesIO()
    with wave.open(out, "wb") as made:
        made.setnchannels(1)
        made.setsampwidth(2)
        made.setframerate(16000)
        made.writeframes(bytes(range(256)) * 187 + bytes(16000 * 3 - 256 * 187))
    return out.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("speech")
    (made / "sounds").mkdir()
    (made / "sounds" / "greeting.wav").write_bytes(greeting_wav())
    return made


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[EmulatorServer]:
    with served_yaml(folder, SCENARIO) as started:
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


def test_a_rule_s_voice_and_format_override_the_request_s(client: openai.OpenAI) -> None:
    asked = [
        speak(client, "say it in onyx please", voice="alloy", response_format="mp3"),
        speak(client, "say it in onyx please", voice="nova", response_format="pcm"),
    ]
    assert asked[0] == asked[1]
    assert wav_seconds(asked[0]) > 0.5  # a wav, whatever was asked
    plain = speak(client, "say it in onyx please", voice="onyx", response_format="wav")
    assert plain == asked[0]  # the rule changes nothing of a request that asked for what it gives


def test_a_rule_s_file_is_the_answer_as_it_is(client: openai.OpenAI, server: EmulatorServer) -> None:
    answer = client.audio.speech.with_raw_response.create(
        model=MODEL, voice="alloy", input="play the recorded greeting", response_format="mp3"
    )
    assert answer.content == greeting_wav()
    assert answer.headers["Content-Type"] == "audio/wav"
    request = urllib.request.Request(
        server.url("speech") + "/audio/speech",
        data=json.dumps({"model": MODEL, "voice": "alloy", "input": "the recorded greeting"}).encode(),
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        body = json.loads(reply.read())
    assert base64.b64decode(body["audio"]) == greeting_wav() and body["mime_type"] == "audio/wav"
    assert body["usage"]["output_tokens"] == round(1.5 * 25)  # the file's 1.5 s


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("../outside.wav", "file '../outside.wav' is outside the scenario file's folder"),
        ("sounds/../../outside.wav", "is outside the scenario file's folder"),
        ("/etc/hostname", "not an absolute one"),
        ("sounds/link.wav", "file 'sounds/link.wav' is outside the scenario file's folder"),
        ("sounds/missing.wav", "file 'sounds/missing.wav' cannot be read: No such file or directory"),
        ("sounds/notes.txt", "file 'sounds/notes.txt' is not an audio: not a wav, mp3, flac or Ogg file"),
        ("sounds/huge.wav", "file 'sounds/huge.wav' is larger than 16 MiB"),
        ("sounds/greeting.wav, format: mp3", "a file is answered as it is: give it without voice or format"),
    ],
)
def test_a_bad_file_is_refused_at_load_with_its_file_line_and_reason(
    server: EmulatorServer, folder: Path, given: str, reason: str
) -> None:
    (folder.parent / "outside.wav").write_bytes(greeting_wav())  # there, but not inside the folder
    (folder / "sounds" / "notes.txt").write_text("not audio", encoding="utf-8")
    link = folder / "sounds" / "link.wav"  # inside the folder, but a link to a file outside it
    if not link.is_symlink():
        link.symlink_to(folder.parent / "outside.wav")
    with (folder / "sounds" / "huge.wav").open("wb") as huge:
        huge.write(greeting_wav()[:44])
        huge.truncate((16 << 20) + 1)
    text = f"rules:\n  - name: canned\n    match: {{api: speech}}\n    reply: {{speech: {{file: {given}}}}}\n"
    [problem] = refused_on_reload(server, folder, text)
    assert problem["file"].endswith("bad.yaml") and problem["line"] == 4, problem
    assert problem["path"].startswith("rules[0].reply.speech") and reason in problem["reason"], problem


def test_the_media_guide_s_file_example_answers_with_its_file(tmp_path: Path) -> None:
    [block] = [b for b in code_blocks(page("guide/media.md")) if b.marker == "run by tests/faces/speech/test_speech.py"]
    (tmp_path / "sounds").mkdir()
    (tmp_path / "sounds" / "greeting.wav").write_bytes(greeting_wav())
    (tmp_path / "pictures").mkdir()
    Image.new("RGB", (64, 48), (10, 200, 30)).save(tmp_path / "pictures" / "logo.png")
    with served_yaml(tmp_path, block.text) as started, sdk(started, "docs") as client:
        assert speak(client, "the recorded greeting, please") == greeting_wav()
        drawn = client.images.generate(model="gpt-image-2", prompt="our logo", size="1024x1024")
        assert drawn.data is not None and drawn.data[0].b64_json is not None
        with Image.open(io.BytesIO(base64.b64decode(drawn.data[0].b64_json))) as image:
            assert (image.format, image.size, image.getpixel((512, 512))) == ("PNG", (1024, 1024), (10, 200, 30))


def test_an_uploaded_scenario_cannot_give_a_file(server: EmulatorServer) -> None:
    text = "rules:\n  - name: canned\n    match: {api: speech}\n    reply: {speech: {file: sounds/greeting.wav}}\n"
    error = error_of(control(server, "POST", "scenarios?name=canned", text=text), 400, "invalid_scenario")
    assert "only a scenario file read from a folder can give a file" in error["problems"][0]["reason"]


def test_a_bad_voice_or_a_file_with_a_format_is_refused_at_load(server: EmulatorServer) -> None:
    for speech, reason in [
        ("{voice: nobody}", "unknown voice 'nobody'"),
        ("{format: aac}", "format"),
    ]:
        text = f"rules:\n  - name: canned\n    match: {{api: speech}}\n    reply: {{speech: {speech}}}\n"
        error = error_of(control(server, "POST", "scenarios?name=canned", text=text), 400, "invalid_scenario")
        assert error["problems"][0]["line"] == 4 and reason in str(error["problems"]), error["problems"]


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
