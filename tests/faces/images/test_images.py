"""The images face through the official openai SDK: generations as base64 and as URLs the emulator
serves, at the requested size and format, edits of an uploaded file, streamed partial images, the
same bytes for the same prompt and seed, a rule's revised prompt and error, and the 400s."""

from __future__ import annotations

import base64
import io
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from PIL import Image

from tests.conftest import served_yaml
from tests.faces.media.attached import refused_on_reload
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SCENARIO = """\
rules:
  - name: revised
    match: {api: images, last_user: {contains: lighthouse}}
    reply: {content: "A lighthouse at dusk, painted in oils"}
  - name: refused
    match: {api: images, last_user: {contains: forbidden}}
    reply: {error: {status: 403, type: safety_check_failed}}
  - name: the-logo
    match: {api: images, last_user: {contains: our logo}}
    reply: {image: {file: pictures/logo.png, partial_images: 1}}
  - name: moderated
    match: {api: images, last_user: {contains: violent}}
    reply: {image: {refusal: "Your request was rejected by the safety system"}}
"""


def logo_png() -> bytes:
    """A 1024x1024 PNG of four quarters, so a crop or a stretch shows in its corners."""
    image = Image.new("RGB", (1024, 1024), (255, 0, 0))
    image.paste((0, 255, 0), (512, 0, 1024, 512))
    image.paste((0, 0, 255), (0, 512, 512, 1024))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("images")
    (made / "pictures").mkdir()
    (made / "pictures" / "logo.png").write_bytes(logo_png())
    return made


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[EmulatorServer]:
    with served_yaml(folder, SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as made:
        yield made


def fetch(url: str | urllib.request.Request) -> bytes:
    with urllib.request.urlopen(url) as answer:
        body: bytes = answer.read()
    return body


def opened(data: bytes) -> Any:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


@pytest.mark.parametrize("size", ["1024x1024", "1536x1024"])
@pytest.mark.parametrize("output_format", ["png", "jpeg"])
def test_a_generated_image_opens_at_the_size_and_format_asked(
    client: openai.OpenAI, size: str, output_format: Any
) -> None:
    answer = client.images.generate(
        model="openai/gpt-image-2",
        prompt="a red kite",
        size=size,
        output_format=output_format,  # type: ignore[arg-type]
    )
    assert answer.data is not None and len(answer.data) == 1
    assert answer.data[0].b64_json is not None
    image = opened(base64.b64decode(answer.data[0].b64_json))
    assert f"{image.size[0]}x{image.size[1]}" == size
    assert image.format == {"png": "PNG", "jpeg": "JPEG"}[output_format]
    assert answer.size == size and answer.output_format == output_format
    assert answer.usage is not None and answer.usage.output_tokens > 0


def test_n_images_differ_and_a_url_is_served_by_the_emulator(client: openai.OpenAI, server: EmulatorServer) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="two kites", n=2, response_format="url")
    assert answer.data is not None
    urls = [item.url for item in answer.data]
    assert all(url is not None and url.startswith(server.base_url.removesuffix("/api/v1")) for url in urls)
    bodies = [fetch(url) for url in urls if url is not None]
    assert bodies[0] != bodies[1]
    assert [opened(body).size for body in bodies] == [(1024, 1024), (1024, 1024)]
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(urls[0] + "x")  # type: ignore[operator]
    assert missing.value.code == 404
    missing.value.close()


def test_an_image_url_expires_on_the_emulators_clock(client: openai.OpenAI, server: EmulatorServer) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="a kite that fades", response_format="url")
    assert answer.data is not None and answer.data[0].url is not None
    assert opened(fetch(answer.data[0].url)).size == (1024, 1024)
    request = urllib.request.Request(
        server.base_url.removesuffix("/api/v1") + "/_emulator/clock",
        data=b'{"advance": 3601}',
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    fetch(request)
    try:
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(answer.data[0].url)
        assert gone.value.code == 404
        gone.value.close()
    finally:
        reset = urllib.request.Request(
            server.base_url.removesuffix("/api/v1") + "/_emulator/clock",
            data=b'{"unfreeze": true}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        fetch(reset)


def test_an_edit_takes_an_uploaded_file_and_a_mask(client: openai.OpenAI) -> None:
    upload = io.BytesIO()
    Image.new("RGB", (64, 64), (10, 20, 30)).save(upload, "PNG")
    answer = client.images.edit(
        model="gpt-image-2",
        image=("photo.png", upload.getvalue(), "image/png"),
        mask=("mask.png", upload.getvalue(), "image/png"),
        prompt="add a hat",
        size="1024x1536",
    )
    assert answer.data is not None and answer.data[0].b64_json is not None
    assert opened(base64.b64decode(answer.data[0].b64_json)).size == (1024, 1536)
    with pytest.raises(openai.BadRequestError, match="Parameter image is not valid"):
        client.images.edit(model="gpt-image-2", image=("photo.png", b"not an image", "image/png"), prompt="x")


def test_a_stream_sends_the_partial_images_then_the_completed_one(client: openai.OpenAI) -> None:
    events = list(client.images.generate(model="gpt-image-2", prompt="a kite", stream=True, partial_images=2))
    assert [event.type for event in events] == [
        "image_generation.partial_image",
        "image_generation.partial_image",
        "image_generation.completed",
    ]
    pictures = [base64.b64decode(event.b64_json) for event in events]
    assert len(set(pictures)) == 3
    assert all(opened(picture).size == (1024, 1024) for picture in pictures)
    assert events[-1].usage is not None  # type: ignore[union-attr]
    upload = io.BytesIO()
    Image.new("RGB", (32, 32)).save(upload, "PNG")
    edits = client.images.edit(
        model="gpt-image-2", image=("a.png", upload.getvalue(), "image/png"), prompt="x", stream=True, partial_images=1
    )
    assert [event.type for event in edits] == ["image_edit.partial_image", "image_edit.completed"]


def test_the_same_prompt_and_seed_give_the_same_bytes(make_server: Callable[..., EmulatorServer]) -> None:
    def picture(server: EmulatorServer, prompt: str) -> bytes:
        with sdk(server, "seeded") as client:
            answer = client.images.generate(model="gpt-image-2", prompt=prompt, output_format="webp")
        assert answer.data is not None and answer.data[0].b64_json is not None
        return base64.b64decode(answer.data[0].b64_json)

    first, second = make_server(seed=7), make_server(seed=7)
    assert picture(first, "a kite") == picture(second, "a kite")
    assert opened(picture(first, "a kite")).format == "WEBP"
    assert picture(first, "a kite") != picture(first, "a boat")


def test_a_rules_content_is_the_revised_prompt_and_its_error_the_answer(client: openai.OpenAI) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="a lighthouse")
    assert answer.data is not None and answer.data[0].revised_prompt == "A lighthouse at dusk, painted in oils"
    with pytest.raises(openai.PermissionDeniedError) as refused:
        client.images.generate(model="gpt-image-2", prompt="something forbidden")
    assert refused.value.body["type"] == "safety_check_failed"  # type: ignore[index]


def test_a_rule_s_file_is_every_image_as_it_is_when_it_is_what_was_asked(client: openai.OpenAI) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="draw our logo", n=2, size="1024x1024")
    assert answer.data is not None
    assert [base64.b64decode(item.b64_json or "") for item in answer.data] == [logo_png(), logo_png()]


def test_a_rule_s_file_is_fitted_to_the_size_and_format_asked(client: openai.OpenAI) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="our logo", size="1536x1024", output_format="jpeg")
    assert answer.data is not None and answer.data[0].b64_json is not None
    image = opened(base64.b64decode(answer.data[0].b64_json))
    assert (image.format, image.size) == ("JPEG", (1536, 1024))
    # cropped about its centre to 3:2: the square's top and bottom sixths are gone, its quarters stay
    red, green, blue = image.getpixel((100, 100)), image.getpixel((1436, 100)), image.getpixel((100, 924))
    assert red[0] > 200 > red[1] and green[1] > 200 > green[0] and blue[2] > 200 > blue[0]


def test_a_rule_s_partial_image_count_and_file_make_the_stream(client: openai.OpenAI) -> None:
    events = list(client.images.generate(model="gpt-image-2", prompt="our logo", stream=True, partial_images=3))
    assert [event.type for event in events] == ["image_generation.partial_image", "image_generation.completed"]
    partial, whole = (base64.b64decode(event.b64_json) for event in events)
    assert whole == logo_png()
    assert partial != whole and opened(partial).size == (1024, 1024)


def test_a_rule_s_refusal_is_a_400_moderation_blocked(client: openai.OpenAI) -> None:
    for stream in (False, True):
        with pytest.raises(openai.BadRequestError) as refused:
            client.images.generate(model="gpt-image-2", prompt="something violent", stream=stream)
        assert refused.value.body == {  # type: ignore[comparison-overlap]
            "code": "400",
            "type": "moderation_blocked",
            "message": "Your request was rejected by the safety system",
        }


@pytest.mark.parametrize(
    ("image", "reason"),
    [
        ("{file: ../elsewhere.png}", "file '../elsewhere.png' is outside the scenario file's folder"),
        ("{file: pictures/notes.txt}", "file 'pictures/notes.txt' is not an image: Pillow cannot open it"),
        ("{file: pictures/nothing.png}", "file 'pictures/nothing.png' cannot be read"),
        ("{refusal: blocked, partial_images: 1}", "a refusal answers no image"),
        ("{partial_images: 4}", "less than or equal to 3"),
    ],
)
def test_a_bad_image_is_refused_at_load_with_its_file_line_and_reason(
    server: EmulatorServer, folder: Path, image: str, reason: str
) -> None:
    (folder.parent / "elsewhere.png").write_bytes(logo_png())
    (folder / "pictures" / "notes.txt").write_text("not a picture", encoding="utf-8")
    text = f"rules:\n  - name: bad\n    match: {{api: images}}\n    reply: {{image: {image}}}\n"
    [problem] = refused_on_reload(server, folder, text)
    assert problem["file"].endswith("bad.yaml") and problem["line"] == 4, problem
    assert problem["path"].startswith("rules[0].reply.image") and reason in problem["reason"], problem


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"size": "1000x1000", "model": "gpt-image-1.5"}, "size"),
        ({"size": "4000x1000"}, "size"),
        ({"output_format": "gif"}, "output_format"),
        ({"background": "transparent", "output_format": "jpeg"}, "background"),
        ({"n": 11}, "n"),
        ({"model": "openai/gpt-4o"}, "gpt-4o"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(client: openai.OpenAI, options: dict[str, Any], field: str) -> None:
    options = {"model": "gpt-image-2", **options}
    with pytest.raises(openai.BadRequestError, match=field):
        client.images.generate(prompt="a kite", **options)


def test_a_transparent_png_has_an_alpha_channel(client: openai.OpenAI) -> None:
    answer = client.images.generate(model="gpt-image-2", prompt="a kite", background="transparent")
    assert answer.data is not None and answer.data[0].b64_json is not None
    image = opened(base64.b64decode(answer.data[0].b64_json))
    assert image.mode == "RGBA" and image.getextrema()[3][0] == 0


def test_a_field_the_face_does_not_read_is_warned_of(client: openai.OpenAI) -> None:
    answer = client.images.with_raw_response.generate(
        model="gpt-image-2", prompt="a kite", extra_body={"colour": "red"}
    )
    assert "colour: not an images parameter; ignored" in answer.headers["x-emulator-warnings"]
    assert answer.parse().data
