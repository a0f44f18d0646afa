"""ZenMux's `:predict` answers OpenAI's GPT image models too: its generate-images reference's own
examples call `openai/gpt-image-2`, by curl (`imageSize` and `quality` in `parameters`) and by
google-genai (the same passthroughs in `http_options.extra_body`, at the top of the body). Before,
the emulator refused them as "a model of the images API"."""

from __future__ import annotations

import base64
import io
from typing import Any

import orjson
import pytest
from google.genai import errors, types
from PIL import Image

from tests.conftest import API_KEY, MakeServer
from tests.faces.platform.test_media_jobs_units import gemini, generations
from tests.faces.platform.test_media_units import fee, lookup
from tests.support.clients import Raw, http
from zenmux_emulator.foundation import tokens
from zenmux_emulator.pytest_plugin.server import EmulatorServer

pytestmark = pytest.mark.filterwarnings("ignore:The generate_images method is deprecated")

GPT = "openai/gpt-image-2"
SCENARIO = """\
rules:
  - name: refused
    match: {api: imagen, last_user: {contains: quota}}
    reply: {error: {status: 429, message: "Too many images"}}
"""
PROMPT = "A cute cat wearing a tiny hat"


def predict(server: EmulatorServer, body: dict[str, Any], model: str = GPT) -> Raw:
    """ZenMux's curl: `POST …/v1/publishers/{provider}/models/{model}:predict`."""
    provider, name = model.split("/")
    url = f"{server.origin}/api/vertex-ai/v1/publishers/{provider}/models/{name}:predict"
    headers = {"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"}
    return http(url, orjson.dumps(body), method="POST", headers=headers)


def sizes(answer: Raw) -> list[tuple[str, tuple[int, int]]]:
    assert answer.status == 200, answer.text
    found = []
    for prediction in answer.json()["predictions"]:
        image = Image.open(io.BytesIO(base64.b64decode(prediction["bytesBase64Encoded"])))
        found.append((prediction["mimeType"], image.size))
    return found


def test_the_docs_curl_makes_the_size_asked_and_bills_openai_s_price_for_its_quality(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    body = {
        "instances": [{"prompt": PROMPT}],
        "parameters": {"sampleCount": 1, "imageSize": "1024x1024", "quality": "high"},
    }
    assert sizes(predict(server, body)) == [("image/png", (1024, 1024))]
    (generation,) = generations(server, "imagen")
    billed = fee(lookup(server, generation), "image")
    assert (billed["quantity"], billed["rate"], billed["unit"]) == (1, 0.167, "perCount")
    prompt_cost = tokens.count(PROMPT) * 5.0 / 1_000_000
    assert lookup(server, generation)["usage"] == pytest.approx(0.167 + prompt_cost)


def test_google_genai_s_extra_body_sets_size_and_count(make_server: MakeServer) -> None:
    server = make_server(SCENARIO)
    extra = types.HttpOptions(extra_body={"imageSize": "1920x1088", "quality": "low"})
    client = gemini(server)  # held: a client collected mid-call closes its connection
    made = client.models.generate_images(
        model=GPT, prompt=PROMPT, config=types.GenerateImagesConfig(number_of_images=3, http_options=extra)
    )
    assert made.generated_images is not None
    opened = [Image.open(io.BytesIO(g.image.image_bytes or b"")) for g in made.generated_images if g.image]
    assert [image.size for image in opened] == [(1920, 1088)] * 3
    (generation,) = generations(server, "imagen")
    assert fee(lookup(server, generation), "image")["quantity"] == 3


@pytest.mark.parametrize(("aspect", "size"), [("16:9", (1536, 1024)), ("9:16", (1024, 1536)), ("1:1", (1024, 1024))])
def test_an_aspect_ratio_without_image_size_picks_the_preset_it_leans_to(
    make_server: MakeServer, aspect: str, size: tuple[int, int]
) -> None:
    body = {"instances": [{"prompt": PROMPT}], "parameters": {"aspectRatio": aspect}}
    assert sizes(predict(make_server(SCENARIO), body)) == [("image/png", size)]


@pytest.mark.parametrize(
    ("model", "parameters", "top", "message"),
    [
        (
            "openai/gpt-image-1",
            {"imageSize": "1920x1088"},
            {},
            "Parameter parameters.imageSize is not valid: '1920x1088'",
        ),
        (GPT, {}, {"imageSize": "1000x1000"}, "Parameter imageSize is not valid: '1000x1000': sides must be"),
        (GPT, {"quality": "ultra"}, {}, "parameters.quality: expected one of low, medium, high, auto"),
        (GPT, {"sampleCount": 11}, {}, "parameters.sampleCount: expected an integer between 1 and 10, got 11"),
        (GPT, {"aspectRatio": "5:4"}, {}, "parameters.aspectRatio: '5:4' is not an aspect ratio openai/gpt-image-2"),
    ],
)
def test_what_a_gpt_image_model_does_not_take_is_a_400_naming_the_field(
    make_server: MakeServer, model: str, parameters: dict[str, Any], top: dict[str, Any], message: str
) -> None:
    answer = predict(make_server(SCENARIO), {"instances": [{"prompt": PROMPT}], "parameters": parameters, **top}, model)
    assert answer.status == 400, answer.text
    assert answer.json()["error"]["message"].startswith(message)


def test_a_rule_naming_imagen_answers_the_gpt_image_model_and_other_faces_still_refuse_it(
    make_server: MakeServer,
) -> None:
    server = make_server(SCENARIO)
    client = gemini(server)
    with pytest.raises(errors.ClientError) as refused:
        client.models.generate_images(model=GPT, prompt="over quota")
    assert refused.value.code == 429
    chat = http(
        f"{server.base_url}/chat/completions",
        orjson.dumps({"model": GPT, "messages": [{"role": "user", "content": "hi"}]}),
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )
    assert chat.status == 400 and "it is a model of the images API" in chat.json()["error"]["message"]
