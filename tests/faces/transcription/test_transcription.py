"""The transcription face through the official openai SDK (its multipart form) and ZenMux's JSON:
json, text, srt, vtt and verbose_json timed across the audio's length, the stream, a rule's text
matched on the file's name, the same text for the same file, and the 400s."""

from __future__ import annotations

import base64
import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import served_yaml
from tests.control.helpers import control, error_of
from tests.support.audio import wav
from tests.support.clients import API_KEY, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MODEL = "openai/whisper-1"
SCENARIO = """\
rules:
  - name: voice-note
    match: {api: transcription, last_user: {contains: "voice-note"}}
    reply: {content: "Remember to buy milk. And call Alice back before five."}
  - name: by-prompt
    match: {api: transcription, system: {contains: "meeting"}}
    reply: {content: "The meeting starts at noon."}
  - name: interview
    match: {api: transcription, last_user: {contains: "interview"}}
    reply:
      transcript:
        language: fr
        duration: 9.5
        segments:
          - {start: 0.5, end: 2.0, text: "Bonjour à tous."}
          - start: 3.0
            end: 6.25
            text: "Merci d'être venus."
            words:
              - {word: "Merci", start: 3.0, end: 3.5}
              - {word: "d'être", start: 4.0, end: 5.0}
              - {word: "venus.", start: 5.5, end: 6.25}
  - name: spanish-note
    match: {api: transcription, last_user: {contains: "nota"}}
    reply: {content: "Hola mundo.", transcript: {language: es}}
  - name: too-loud
    match: {api: transcription, last_user: {contains: "broken"}}
    reply: {error: {status: 400, message: "Audio file might be corrupted or unsupported"}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("transcription"), SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as made:
        yield made


def transcribe(client: openai.OpenAI, name: str = "voice-note.wav", seconds: float = 4.0, **options: Any) -> Any:
    return client.audio.transcriptions.create(model=MODEL, file=(name, wav(seconds), "audio/wav"), **options)


RULE_TEXT = "Remember to buy milk. And call Alice back before five."


def test_json_is_the_rules_text_with_the_audios_seconds(client: openai.OpenAI) -> None:
    answer = transcribe(client)
    assert answer.text == RULE_TEXT
    assert answer.usage.seconds == 4.0 and answer.usage.output_tokens > 0


def test_text_srt_and_vtt(client: openai.OpenAI) -> None:
    assert transcribe(client, response_format="text") == RULE_TEXT + "\n"
    srt = transcribe(client, response_format="srt")
    assert srt.startswith("1\n00:00:00,000 --> ") and "2\n" in srt and srt.rstrip().endswith("before five.")
    stamps = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d)", srt)
    assert stamps[-1] == ("00", "00", "04", "000")
    vtt = transcribe(client, response_format="vtt")
    assert vtt.startswith("WEBVTT\n\n00:00:00.000 --> ") and "00:00:04.000" in vtt


def test_verbose_json_has_segments_and_words_timed_across_the_audio(client: openai.OpenAI) -> None:
    answer = transcribe(client, response_format="verbose_json", timestamp_granularities=["word", "segment"])
    assert answer.duration == 4.0 and answer.text == RULE_TEXT
    assert [s.text for s in answer.segments] == ["Remember to buy milk.", "And call Alice back before five."]
    assert answer.segments[-1].end == 4.0
    assert [w.word for w in answer.words] == RULE_TEXT.split()
    starts = [w.start for w in answer.words]
    assert starts == sorted(starts) and answer.words[-1].end == 4.0
    only_segments = transcribe(client, response_format="verbose_json")
    assert only_segments.words is None and only_segments.segments


def test_a_rule_s_transcript_gives_its_segments_words_language_and_duration(client: openai.OpenAI) -> None:
    answer = transcribe(
        client, "interview.wav", response_format="verbose_json", timestamp_granularities=["word", "segment"]
    )
    assert (answer.text, answer.language, answer.duration) == ("Bonjour à tous. Merci d'être venus.", "fr", 9.5)
    assert [(s.start, s.end, s.text) for s in answer.segments] == [
        (0.5, 2.0, "Bonjour à tous."),
        (3.0, 6.25, "Merci d'être venus."),
    ]
    assert [(w.word, w.start, w.end) for w in answer.words] == [
        ("Bonjour", 0.5, 1.0),  # a segment without words: its words spread evenly across it
        ("à", 1.0, 1.5),
        ("tous.", 1.5, 2.0),
        ("Merci", 3.0, 3.5),
        ("d'être", 4.0, 5.0),
        ("venus.", 5.5, 6.25),
    ]
    srt = transcribe(client, "interview.wav", response_format="srt")
    assert (
        srt
        == "1\n00:00:00,500 --> 00:00:02,000\nBonjour à tous.\n\n2\n00:00:03,000 --> 00:00:06,250\nMerci d'être venus.\n\n"
    )
    plain = transcribe(client, "interview.wav")
    assert plain.text == "Bonjour à tous. Merci d'être venus." and plain.usage.seconds == 9.5


def test_a_rule_s_transcript_language_keeps_its_content_timed_across_the_audio(client: openai.OpenAI) -> None:
    answer = transcribe(client, "nota.wav", seconds=2.0, response_format="verbose_json")
    assert (answer.text, answer.language, answer.duration) == ("Hola mundo.", "es", 2.0)
    assert [(s.start, s.end) for s in answer.segments] == [(0.0, 2.0)]


@pytest.mark.parametrize(
    ("transcript", "path", "reason"),
    [
        (
            "{segments: [{start: 2, end: 1, text: hi}]}",
            "rules[0].reply.transcript.segments[0]",
            "end 1.0 is before start 2.0",
        ),
        (
            "{segments: [{start: 0, end: 1, text: hi, words: [{word: hi, start: 0, end: 3}]}]}",
            "rules[0].reply.transcript.segments[0]",
            "words[0] (0.0-3.0) is outside the segment (0.0-1.0)",
        ),
        (
            "{duration: 1, segments: [{start: 0, end: 2, text: hi}]}",
            "rules[0].reply.transcript",
            "the last segment ends after the duration (1.0 s)",
        ),
        (
            "{segments: [{start: 0, end: 1, txt: hi}]}",
            "rules[0].reply.transcript.segments[0].txt",
            "did you mean 'text'",
        ),
    ],
)
def test_a_bad_transcript_is_refused_at_load_with_its_line(
    server: EmulatorServer, transcript: str, path: str, reason: str
) -> None:
    bad = f"rules:\n  - name: bad\n    match: {{api: transcription}}\n    reply: {{transcript: {transcript}}}\n"
    error = error_of(control(server, "POST", "scenarios?name=bad-transcript", text=bad), 400, "invalid_scenario")
    problem = error["problems"][-1]
    assert problem["line"] == 4 and problem["path"] == path and reason in problem["reason"], problem


def test_a_stream_sends_deltas_then_done(client: openai.OpenAI) -> None:
    events = list(transcribe(client, stream=True))
    assert {e.type for e in events[:-1]} == {"transcript.text.delta"}
    assert "".join(e.delta for e in events[:-1]) == RULE_TEXT
    assert events[-1].type == "transcript.text.done" and events[-1].text == RULE_TEXT


def test_a_rule_matches_the_prompt_and_its_error_is_the_answer(client: openai.OpenAI) -> None:
    assert transcribe(client, name="clip.wav", prompt="notes of the meeting").text == "The meeting starts at noon."
    with pytest.raises(openai.BadRequestError, match="corrupted"):
        transcribe(client, name="broken.wav")


def test_without_a_rule_the_same_file_gives_the_same_text(client: openai.OpenAI) -> None:
    first = transcribe(client, name="clip.wav", seconds=2.0).text
    assert first and first == transcribe(client, name="clip.wav", seconds=2.0).text
    assert transcribe(client, name="clip.wav", seconds=3.0).text != first


def test_zenmux_json_with_input_audio(server: EmulatorServer) -> None:
    body = {"model": "qwen/qwen3-asr-flash", "input_audio": {"data": base64.b64encode(wav(2)).decode()}}
    request = urllib.request.Request(
        server.base_url + "/audio/transcriptions",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as answer:
        read = json.loads(answer.read())
    assert read["model"] == "qwen/qwen3-asr-flash" and read["text"] and read["usage"]["seconds"] == 2.0


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"response_format": "diarized"}, "response_format"),
        ({"model": "openai/tts-1"}, "tts-1"),
        ({"timestamp_granularities": ["char"]}, "timestamp_granularities"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: openai.OpenAI, options: dict[str, Any], field: str) -> None:
    options = {"model": MODEL, "file": ("a.wav", wav(1), "audio/wav"), **options}
    with pytest.raises(openai.BadRequestError, match=field):
        client.audio.transcriptions.create(**options)
