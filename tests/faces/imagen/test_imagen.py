"""Imagen's `:predict` through google-genai's `models.generate_images`, as ZenMux's docs set it up
(`vertexai=True`, api_version v1): the images open in Pillow at the size the aspect ratio and tier
give, as many as asked, in the format asked; the same prompt and seed give the same bytes; a rule's
enhanced prompt, refusal and error; and bad input answered 400 naming the field."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from google import genai
from google.genai import errors, types
from PIL import Image

from tests.conftest import API_KEY, MakeServer, served_yaml
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER

pytestmark = pytest.mark.filterwarnings("ignore:The generate_images method is deprecated")

IMAGEN = "google/imagen-4.0-generate-001"
SCENARIO = """\
rules:
  - name: enhanced
    match: {api: imagen, last_user: {contains: lighthouse}}
    reply: {content: "A lighthouse at dusk on a rocky shore, painted in oils"}
  - name: filtered
    match: {api: imagen, last_user: {contains: forbidden}}
    reply: {refusal: "The prompt could not be submitted: it may violate the usage guidelines."}
  - name: refused
    match: {api: imagen, last_user: {contains: quota}}
    reply: {error: {status: 429, message: "Too many images"}}
  - name: chat-only
    match: {last_user: {contains: kite}}
    reply: {content: "A rule without api answers no Imagen request"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("imagen"), SCENARIO) as started:
        yield started


def gemini(server: EmulatorServer, session: str) -> genai.Client:
    options = types.HttpOptions(base_url=server.url("vertex"), api_version="v1", headers={SESSION_HEADER: session})
    return genai.Client(api_key=API_KEY, vertexai=True, http_options=options)


def generate(client: genai.Client, prompt: str, model: str = IMAGEN, **config: Any) -> types.GenerateImagesResponse:
    return client.models.generate_images(model=model, prompt=prompt, config=types.GenerateImagesConfig(**config))


def opened(data: bytes | None) -> Any:
    assert data is not None
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize(
    ("aspect", "mime", "size"),
    [
        (None, None, (1024, 1024)),
        ("16:9", "image/jpeg", (1408, 768)),
        ("3:4", "image/png", (896, 1280)),
    ],
)
def test_generate_images_opens_at_the_aspects_size_as_many_as_asked(
    server: EmulatorServer, session: str, aspect: str | None, mime: str | None, size: tuple[int, int]
) -> None:
    answer = generate(
        gemini(server, session),
        "a red kite over a field",
        number_of_images=3,
        aspect_ratio=aspect,
        output_mime_type=mime,
    )
    images = answer.generated_images or []
    assert len(images) == 3
    pictures = [opened(generated.image.image_bytes if generated.image else None) for generated in images]
    assert all(picture.size == size for picture in pictures)
    assert {picture.format for picture in pictures} == {"JPEG" if mime == "image/jpeg" else "PNG"}
    assert all(generated.image and generated.image.mime_type == (mime or "image/png") for generated in images)
    assert len({picture.tobytes() for picture in pictures}) == 3  # three different pictures
    [entry] = [e for e in server.state.journal.entries() if e.session == session]
    assert entry.api == "imagen" and entry.rule is None  # a rule without `api` does not answer it


def test_the_2k_tier_doubles_the_size(server: EmulatorServer, session: str) -> None:
    answer = generate(gemini(server, session), "a kite", aspect_ratio="9:16", image_size="2K")
    [generated] = answer.generated_images or []
    assert opened(generated.image.image_bytes if generated.image else None).size == (1536, 2816)


def test_the_tier_as_zenmux_s_passthrough_in_extra_body_doubles_the_size_too(
    server: EmulatorServer, session: str
) -> None:
    """ZenMux's reference passes `sampleImageSize` through `http_options.extra_body`, which puts it
    at the top of the body, beside `instances`."""
    client = gemini(server, session)
    extra = types.HttpOptions(extra_body={"sampleImageSize": "2K"})
    answer = generate(client, "a kite", aspect_ratio="16:9", http_options=extra)
    [generated] = answer.generated_images or []
    assert opened(generated.image.image_bytes if generated.image else None).size == (2816, 1536)


def test_the_same_prompt_and_seed_give_the_same_bytes(make_server: MakeServer) -> None:
    def picture(server: EmulatorServer, prompt: str, seed: int | None = None) -> bytes:
        [generated] = generate(gemini(server, "seeded"), prompt, seed=seed).generated_images or []
        assert generated.image is not None and generated.image.image_bytes is not None
        return generated.image.image_bytes

    first, second = make_server(seed=7), make_server(seed=7)
    assert picture(first, "a kite") == picture(second, "a kite")
    assert picture(first, "a kite", seed=3) == picture(second, "a kite", seed=3)
    assert picture(first, "a kite") != picture(first, "a boat")
    assert picture(first, "a kite", seed=3) != picture(first, "a kite", seed=4)
    assert picture(make_server(seed=8), "a kite") != picture(first, "a kite")


def test_a_rules_content_is_the_enhanced_prompt(server: EmulatorServer, session: str) -> None:
    client = gemini(server, session)
    [generated] = generate(client, "a lighthouse", enhance_prompt=True).generated_images or []
    assert generated.enhanced_prompt == "A lighthouse at dusk on a rocky shore, painted in oils"
    [plain] = generate(client, "a boat", enhance_prompt=True).generated_images or []
    assert plain.enhanced_prompt == "a boat"
    [unasked] = generate(client, "a lighthouse").generated_images or []
    assert unasked.enhanced_prompt is None


def test_safety_attributes_are_sent_when_asked(server: EmulatorServer, session: str) -> None:
    answer = generate(gemini(server, session), "a boat", number_of_images=2, include_safety_attributes=True)
    images = answer.generated_images or []
    assert len(images) == 2
    assert all(image.safety_attributes and image.safety_attributes.categories == [] for image in images)
    assert answer.positive_prompt_safety_attributes is not None
    assert answer.positive_prompt_safety_attributes.content_type == "Positive Prompt"


def test_a_rules_refusal_filters_the_images_and_its_error_is_the_answer(server: EmulatorServer, session: str) -> None:
    client = gemini(server, session)
    [filtered] = generate(client, "something forbidden", include_rai_reason=True).generated_images or []
    assert filtered.image is None or filtered.image.image_bytes is None
    assert filtered.rai_filtered_reason == "The prompt could not be submitted: it may violate the usage guidelines."
    assert not generate(client, "something forbidden").generated_images
    with pytest.raises(errors.ClientError) as refused:
        generate(client, "over quota")
    assert refused.value.code == 429 and refused.value.message == "Too many images"


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"aspect_ratio": "7:5"}, "parameters.aspectRatio"),
        ({"number_of_images": 5}, "parameters.sampleCount"),
        ({"number_of_images": 0}, "parameters.sampleCount"),
        ({"output_mime_type": "image/gif"}, "parameters.outputOptions.mimeType"),
        ({"image_size": "4K"}, "parameters.sampleImageSize"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(
    server: EmulatorServer, session: str, config: dict[str, Any], field: str
) -> None:
    with pytest.raises(errors.ClientError) as refused:
        generate(gemini(server, session), "a kite", **config)
    assert refused.value.code == 400
    assert refused.value.details["error"]["type"] == "invalid_params"
    assert refused.value.message is not None and refused.value.message.startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "instances"),
        ({"instances": [{"prompt": ""}]}, "instances[0].prompt"),
        ({"instances": [{"prompt": "a"}, {"prompt": "b"}]}, "instances"),
        ({"instances": [{"prompt": "a"}], "parameters": {"sampleCount": "2"}}, "parameters.sampleCount"),
        ({"instances": [{"prompt": "a"}], "parameters": []}, "parameters"),
    ],
)
def test_a_raw_bad_body_is_a_400_naming_the_field(server: EmulatorServer, body: object, field: str) -> None:
    answer = http(
        f"{server.url('vertex')}/v1/publishers/google/models/imagen-4.0-fast-generate-001:predict",
        orjson.dumps(body),
        method="POST",
        headers={"Content-Type": "application/json", "x-goog-api-key": API_KEY},
    )
    assert answer.status == 400
    assert answer.json()["error"]["message"].startswith(f"{field}: ")


def test_a_model_that_makes_no_images_is_refused(server: EmulatorServer, session: str) -> None:
    with pytest.raises(errors.ClientError) as refused:
        generate(gemini(server, session), "a kite", model="google/gemini-2.5-pro")
    assert refused.value.code == 400
    assert "google/gemini-2.5-pro" in str(refused.value.message) and "does not generate images" in str(
        refused.value.message
    )


def test_the_index_lists_the_predict_routes_under_imagen(server: EmulatorServer) -> None:
    answer = http(server.origin + "/", headers={"Accept": "application/json"})
    faces = {face["name"]: face for face in answer.json()["faces"]}
    own = faces["imagen"]["routes"]
    assert "POST /api/vertex-ai/{imagen_version}/publishers/{provider}/models/{name}:predict" in own
    assert own and all(route.endswith(":predict") for route in own)
