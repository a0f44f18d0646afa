"""Media priced in ZenMux's units (issue 38, item 5): images per count by quality and size, speech
and transcription per second of audio, through the openai SDK; the Platform API (raw HTTP) sees
them in the generation lookup, the balance, usage and cost, the model listing's `pricings`, and a
balance they spend answers 402."""

from __future__ import annotations

import io
import wave
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import MakeServer
from tests.support.audio import wav
from tests.support.clients import API_KEY, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MANAGEMENT = "sk-mg-v1-test-management"
MONTH = "query_dimension=BIZ_MTH&query_time=202601"
IMAGE, SPEECH, TRANSCRIBE = "openai/gpt-image-1", "openai/tts-1-hd", "openai/whisper-1"
SCENARIO = """\
rules:
  - name: note
    match: {api: transcription}
    reply: {content: "Call me back after lunch."}
"""


@pytest.fixture
def server(make_server: MakeServer) -> Iterator[EmulatorServer]:
    yield make_server(SCENARIO)


def management(server: EmulatorServer, path: str) -> Any:
    reply = http(f"{server.base_url}/management/{path}", headers={"Authorization": f"Bearer {MANAGEMENT}"})
    assert reply.status == 200, reply.text
    return reply.json()


def lookup(server: EmulatorServer, generation: str) -> dict[str, Any]:
    found: dict[str, Any] = management(server, f"generation?id={generation}")
    return found


def wav_seconds(data: bytes) -> float:
    with wave.open(io.BytesIO(data)) as read:
        return read.getnframes() / read.getframerate()


def fee(generation: dict[str, Any], item: str) -> dict[str, Any]:
    [found] = [d for d in generation["ratingResponses"]["ratingDetails"] if d["feeItemCode"] == item]
    return found


def test_images_are_billed_per_image_at_their_quality_and_size(server: EmulatorServer) -> None:
    with sdk(server, "images") as client:
        square = client.images.with_raw_response.generate(
            model=IMAGE, prompt="a red kite", n=2, quality="low", size="1024x1024"
        )
        oblong = client.images.with_raw_response.generate(
            model=IMAGE, prompt="a red kite", n=1, quality="high", size="1536x1024"
        )
    assert square.parse().usage is not None and square.parse().usage.output_tokens > 0  # ZenMux's usage, in tokens
    low = fee(lookup(server, square.headers["x-generation-id"]), "image")
    assert (low["quantity"], low["rate"], low["unit"]) == (2, 0.011, "perCount")
    assert low["billAmount"] == pytest.approx(0.022)
    high = lookup(server, oblong.headers["x-generation-id"])
    assert (fee(high, "image")["quantity"], fee(high, "image")["rate"]) == (1, 0.25)
    prompt = fee(high, "prompt")["billAmount"]
    assert high["usage"] == pytest.approx(0.25 + prompt)
    assert management(server, "payg/balance")["data"]["total_credits"] == pytest.approx(
        100.0 - 0.022 - 0.25 - 2 * prompt, abs=1e-6
    )


def test_speech_and_transcription_are_billed_per_second_of_audio(server: EmulatorServer) -> None:
    with sdk(server, "audio") as client:
        spoken = client.audio.speech.with_raw_response.create(
            model=SPEECH,
            voice="alloy",
            input="Hello there, this is a longer sentence read aloud.",
            response_format="wav",
        )
        heard = client.audio.transcriptions.with_raw_response.create(
            model=TRANSCRIBE, file=("note.wav", wav(6.0), "audio/wav"), response_format="json"
        )
    seconds = wav_seconds(spoken.content)
    speech = fee(lookup(server, spoken.headers["x-generation-id"]), "audio")
    assert speech["unit"] == "perSecond" and speech["rate"] == 0.0005
    assert speech["quantity"] == pytest.approx(seconds, abs=0.001)
    transcription = lookup(server, heard.headers["x-generation-id"])
    assert heard.parse().text == "Call me back after lunch."
    assert (fee(transcription, "audio")["quantity"], fee(transcription, "audio")["rate"]) == (6.0, 0.0001)
    assert transcription["usage"] == pytest.approx(6.0 * 0.0001)


def test_usage_counts_the_images_and_seconds_and_cost_has_them_as_other_cost(server: EmulatorServer) -> None:
    with sdk(server, "usage") as client:
        client.images.generate(model=IMAGE, prompt="a kite", n=3, quality="medium", size="1024x1024")
        client.audio.transcriptions.create(model=TRANSCRIBE, file=("a.wav", wav(2.5), "audio/wav"))
        client.audio.transcriptions.create(model=TRANSCRIBE, file=("b.wav", wav(1.5), "audio/wav"))
    usage = management(server, f"usage?type=usage&{MONTH}")["data"]
    media = {row["modelSlug"]: row for row in usage["countsByMedia"]}
    assert (media[IMAGE]["counts"], media[IMAGE]["requestCounts"]) == ("3", "1")
    assert (media[TRANSCRIBE]["seconds"], media[TRANSCRIBE]["requestCounts"]) == ("4.000", "2")
    summary = management(server, f"cost?type=cost&{MONTH}")["data"]["summary"]
    assert float(summary["otherCost"]) == pytest.approx(3 * 0.042 + 4.0 * 0.0001)
    assert float(summary["totalCost"]) == pytest.approx(
        float(summary["inputCost"]) + float(summary["outputCost"]) + float(summary["otherCost"])
    )


def test_a_scenarios_model_prices_its_images_and_the_listing_shows_them(make_server: MakeServer) -> None:
    server = make_server(
        """
        models:
          openai/gpt-image-1:
            output_modalities: [image]
            pricing:
              prompt: 0
              units:
                image:
                  - {value: 0.5, unit: perCount}
                  - {value: 0.75, unit: perCount, when: {quality: high}}
        """
    )
    listed = {m["id"]: m for m in http(f"{server.base_url}/models").json()["data"]}
    assert listed[IMAGE]["pricings"]["image"] == [
        {"value": 0.5, "unit": "perCount", "currency": "USD"},
        {"value": 0.75, "unit": "perCount", "currency": "USD", "conditions": {"quality": "high"}},
    ]
    with sdk(server, "priced") as client:
        medium = client.images.with_raw_response.generate(model=IMAGE, prompt="a kite", n=2, quality="medium")
        high = client.images.with_raw_response.generate(model=IMAGE, prompt="a kite", quality="high")
    assert lookup(server, medium.headers["x-generation-id"])["usage"] == pytest.approx(1.0)
    assert lookup(server, high.headers["x-generation-id"])["usage"] == pytest.approx(0.75)


def test_images_spend_a_balance_until_402(make_server: MakeServer) -> None:
    server = make_server("settings: {balances: {sk-small: 0.05}}\n")
    with sdk(server, "small", api_key="sk-small") as client:
        first = client.images.with_raw_response.generate(model=IMAGE, prompt="a kite", quality="medium")
        assert float(first.headers["x-emulator-balance"]) == pytest.approx(0.05 - 0.042, abs=1e-4)
        second = client.images.with_raw_response.generate(model=IMAGE, prompt="a kite", quality="medium")
        assert float(second.headers["x-emulator-balance"]) < 0
        with pytest.raises(openai.APIStatusError) as refused:
            client.images.generate(model=IMAGE, prompt="a kite", quality="low")
    assert refused.value.status_code == 402
    with sdk(server, "small", api_key=API_KEY) as other:
        assert other.images.generate(model=IMAGE, prompt="a kite", quality="low").data
