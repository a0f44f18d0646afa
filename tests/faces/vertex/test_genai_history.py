"""History google-genai and Gemini 3 send back, and usage by modality (issue 42): a model turn
with an empty thought part (google-genai's chat passes it back), Gemini 3's `toolCall` /
`toolResponse` parts, and an image counted as IMAGE in `promptTokensDetails` with the reply's
tokens in `candidatesTokensDetails`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.genai import types

from tests.conftest import served_yaml
from tests.faces.vertex.helpers import GEMINI_3, MODEL, SCENARIO, client, post
from tests.support.clients import http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

FORMS = [pytest.param(True, id="vertexai"), pytest.param(False, id="gemini-api")]
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4560000000049454e44ae426082"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("vertex-history"), SCENARIO) as started:
        yield started


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_chat_history_with_an_empty_thought_part_is_taken(server: EmulatorServer, vertexai: bool) -> None:
    history = [
        types.Content(role="user", parts=[types.Part(text="Hi there")]),
        types.Content(role="model", parts=[types.Part(thought=True), types.Part(text="Hello.")]),
    ]
    gemini = client(server, f"thought-{vertexai}", vertexai=vertexai)  # kept: a dropped Client closes its connection
    chat = gemini.chats.create(model=MODEL, history=history)
    reply = chat.send_message("hello gemini")
    assert reply.text == "Hello from the emulator, Gemini style!"


def test_gemini_3_tool_call_and_tool_response_parts_are_taken(server: EmulatorServer) -> None:
    contents = [
        {"role": "user", "parts": [{"text": "Search the news"}]},
        {
            "role": "model",
            "parts": [
                {"toolCall": {"id": "c1", "toolType": "GOOGLE_SEARCH_WEB", "args": {"queries": ["news"]}}},
                {"toolResponse": {"id": "c1", "toolType": "GOOGLE_SEARCH_WEB", "response": {"ok": True}}},
                {"text": "Here is the news."},
            ],
        },
        {"role": "user", "parts": [{"text": "hello gemini"}]},
    ]
    answer = post(server, f"/v1beta/models/{GEMINI_3}:generateContent", {"contents": contents})
    assert answer.status == 200, answer.text
    assert answer.json()["candidates"][0]["content"]["parts"][-1]["text"] == "Hello from the emulator, Gemini style!"


def test_a_part_with_nothing_in_it_is_still_refused(server: EmulatorServer) -> None:
    contents = [{"role": "user", "parts": [{"thought": False}]}]
    answer = post(server, f"/v1beta/models/{MODEL}:generateContent", {"contents": contents})
    assert answer.status == 400 and "contents[0].parts[0]" in answer.text


@pytest.mark.parametrize("vertexai", FORMS)
def test_an_image_is_counted_as_image_and_the_reply_as_text(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"image-{vertexai}", vertexai=vertexai)
    image = types.Part.from_bytes(data=PIXEL, mime_type="image/png")
    reply = gemini.models.generate_content(model=MODEL, contents=[image, "hello gemini"])
    usage = reply.usage_metadata
    assert usage is not None and usage.prompt_tokens_details and usage.candidates_tokens_details
    prompt = {d.modality: d.token_count for d in usage.prompt_tokens_details}
    assert set(prompt) == {types.MediaModality.TEXT, types.MediaModality.IMAGE}
    assert prompt[types.MediaModality.IMAGE] and sum(v or 0 for v in prompt.values()) == usage.prompt_token_count
    [candidates] = usage.candidates_tokens_details
    assert candidates.modality == types.MediaModality.TEXT
    assert candidates.token_count == usage.candidates_token_count
    counted = gemini.models.count_tokens(model=MODEL, contents=[image, "hello gemini"])
    assert counted.total_tokens == usage.prompt_token_count


@pytest.mark.parametrize("vertexai", FORMS)
def test_models_list_pages_by_page_size(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"pages-{vertexai}", vertexai=vertexai)
    whole = [model.name for model in gemini.models.list()]
    size = 3 if vertexai else 10  # the Vertex form lists Google's models alone
    assert len(whole) > size
    pager = gemini.models.list(config={"page_size": size})
    assert len(pager.page) == size and pager.page_size == size
    paged = [model.name for model in pager]
    assert paged == whole


def test_a_wrong_page_size_or_token_is_a_400_naming_it(server: EmulatorServer) -> None:
    base = server.url("vertex") + "/v1beta/models"
    assert http(base + "?pageSize=ten").status == 400 and "pageSize" in http(base + "?pageSize=ten").text
    wrong = http(base + "?pageSize=2&pageToken=nonsense")
    assert wrong.status == 400 and "pageToken" in wrong.text
