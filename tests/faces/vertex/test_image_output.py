"""Gemini's image output through google-genai: `response_modalities=["TEXT", "IMAGE"]` on an image
model answers an `inlineData` PNG Pillow opens beside the text, plain and streamed, at
`image_config`'s aspect ratio and size; `IMAGE` alone answers the image alone; the same prompt and
seed draw the same bytes; a TEXT-only request is answered as one without modalities; a text model
asked for an image, and an aspect ratio Gemini does not offer, are 400s naming what is wrong."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from google.genai import errors, types
from PIL import Image

from tests.conftest import MakeServer, served_yaml
from tests.faces.vertex.helpers import ask, client, post
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

IMAGE_MODEL = "google/gemini-2.5-flash-image"
SCENARIO = """\
rules:
  - name: banana
    match: {last_user: {contains: banana}}
    reply: {content: "Here is your nano banana dish."}
  - name: refused
    match: {last_user: {contains: forbidden}}
    reply: {refusal: "I can't draw that."}
"""
BOTH = types.GenerateContentConfig(response_modalities=["TEXT", "IMAGE"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("gemini-image"), SCENARIO) as started:
        yield started


def opened(data: bytes | None) -> Any:
    assert data is not None
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def image_bytes(parts: list[types.Part]) -> list[bytes]:
    return [part.inline_data.data for part in parts if part.inline_data is not None and part.inline_data.data]


@pytest.mark.parametrize("vertexai", [True, False])
def test_an_image_part_opens_beside_the_text(server: EmulatorServer, session: str, vertexai: bool) -> None:
    gemini = client(server, session, vertexai=vertexai)
    reply = gemini.models.generate_content(model=IMAGE_MODEL, contents="a nano banana dish", config=BOTH)
    parts = reply.parts or []
    assert [part.text for part in parts if part.text] == ["Here is your nano banana dish."]
    [png] = image_bytes(parts)
    [inline] = [part.inline_data for part in parts if part.inline_data is not None]
    assert inline.mime_type == "image/png"
    picture = opened(png)
    assert (picture.format, picture.size) == ("PNG", (1024, 1024))
    usage = reply.usage_metadata
    assert usage is not None and usage.candidates_tokens_details is not None
    by_modality = {detail.modality: detail.token_count for detail in usage.candidates_tokens_details}
    assert by_modality[types.MediaModality.IMAGE] == 1290
    assert usage.candidates_token_count == sum(count or 0 for count in by_modality.values())


@pytest.mark.parametrize(
    ("image_config", "size"),
    [
        (types.ImageConfig(aspect_ratio="16:9"), (1344, 768)),
        (types.ImageConfig(aspect_ratio="3:4", image_size="2K"), (1728, 2368)),
    ],
)
def test_the_image_has_the_aspect_ratios_size(
    server: EmulatorServer, session: str, image_config: types.ImageConfig, size: tuple[int, int]
) -> None:
    config = types.GenerateContentConfig(response_modalities=["TEXT", "IMAGE"], image_config=image_config)
    gemini = client(server, session, vertexai=True)
    reply = gemini.models.generate_content(model=IMAGE_MODEL, contents="a banana", config=config)
    [png] = image_bytes(reply.parts or [])
    assert opened(png).size == size


def test_streamed_the_image_comes_whole_after_the_text(server: EmulatorServer, session: str) -> None:
    gemini = client(server, session, vertexai=True)
    chunks = list(gemini.models.generate_content_stream(model=IMAGE_MODEL, contents="a banana dish", config=BOTH))
    parts = [part for chunk in chunks for part in chunk.parts or []]
    assert "".join(part.text for part in parts if part.text) == "Here is your nano banana dish."
    [png] = image_bytes(parts)
    assert opened(png).size == (1024, 1024)
    assert parts[-1].inline_data is not None  # after every piece of the text
    [plain] = image_bytes(
        gemini.models.generate_content(model=IMAGE_MODEL, contents="a banana dish", config=BOTH).parts or []
    )
    assert plain == png


def test_image_alone_sends_no_text(server: EmulatorServer, session: str) -> None:
    config = types.GenerateContentConfig(response_modalities=["IMAGE"])
    gemini = client(server, session, vertexai=True)
    reply = gemini.models.generate_content(model=IMAGE_MODEL, contents="a banana", config=config)
    parts = reply.parts or []
    assert len(parts) == 1 and parts[0].text is None
    assert opened(image_bytes(parts)[0]).format == "PNG"
    usage = reply.usage_metadata
    assert usage is not None and usage.candidates_token_count == 1290


def test_a_refusal_sends_no_image(server: EmulatorServer, session: str) -> None:
    gemini = client(server, session, vertexai=True)
    reply = gemini.models.generate_content(model=IMAGE_MODEL, contents="something forbidden", config=BOTH)
    [candidate] = reply.candidates or []
    assert candidate.finish_reason == types.FinishReason.SAFETY
    assert not image_bytes(reply.parts or [])


def test_the_same_prompt_and_seed_draw_the_same_bytes(make_server: MakeServer) -> None:
    def picture(server: EmulatorServer, prompt: str) -> bytes:
        gemini = client(server, "seeded", vertexai=True)
        [png] = image_bytes(gemini.models.generate_content(model=IMAGE_MODEL, contents=prompt, config=BOTH).parts or [])
        return png

    first, second = make_server(seed=7), make_server(seed=7)
    assert picture(first, "a kite") == picture(second, "a kite")
    assert picture(first, "a kite") != picture(first, "a boat")
    assert picture(make_server(seed=8), "a kite") != picture(first, "a kite")


@pytest.mark.parametrize("model", [IMAGE_MODEL, "google/gemini-2.5-pro"])
def test_a_text_only_request_is_answered_as_one_without_modalities(make_server: MakeServer, model: str) -> None:
    def answer(modalities: dict[str, Any]) -> str:
        server = make_server(seed=7)
        path = f"/v1/publishers/{model.replace('/', '/models/')}:generateContent"
        sent = post(server, path, ask("a banana dish", **modalities), headers={SESSION_HEADER: "same"})
        assert sent.status == 200
        return sent.text

    plain = answer({})
    assert answer({"generationConfig": {"responseModalities": ["TEXT"]}}) == plain
    assert "inlineData" not in plain and '"text"' in plain


def test_a_text_model_asked_for_an_image_is_refused_in_googles_words(server: EmulatorServer, session: str) -> None:
    gemini = client(server, session, vertexai=True)
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(model="google/gemini-2.5-pro", contents="a banana", config=BOTH)
    assert refused.value.code == 400
    assert refused.value.message == "Model does not support the requested response modalities: image"


@pytest.mark.parametrize(
    ("image_config", "field"),
    [
        ({"aspectRatio": "7:5"}, "generationConfig.imageConfig.aspectRatio"),
        ({"imageSize": "8K"}, "generationConfig.imageConfig.imageSize"),
    ],
)
def test_an_image_config_gemini_does_not_offer_is_a_400_naming_the_field(
    server: EmulatorServer, image_config: dict[str, str], field: str
) -> None:
    body = ask("a banana", generationConfig={"responseModalities": ["TEXT", "IMAGE"], "imageConfig": image_config})
    answer = post(server, "/v1/publishers/google/models/gemini-2.5-flash-image:generateContent", body)
    assert answer.status == 400
    assert answer.json()["error"]["message"].startswith(f"{field}: ")
