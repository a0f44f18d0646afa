"""google-genai (pinned), sync and async, on both path forms: plain and streamed answers, a function
calling loop with the signature passed back, a tampered signature, a Gemini 3 call without its
signature, count_tokens, models.list(), structured output, a refused key, and the SDK's own
automatic function calling."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from google.genai import errors, types

from tests.conftest import MakeServer, served_yaml
from tests.faces.vertex.helpers import GEMINI_3, MODEL, SCENARIO, client
from zenmux_emulator.pytest_plugin.server import EmulatorServer

FORMS = [pytest.param(True, id="vertexai"), pytest.param(False, id="gemini-api")]
WEATHER_TOOL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The weather in a city",
            parameters=types.Schema(
                type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}, required=["city"]
            ),
        )
    ]
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("vertex"), SCENARIO) as started:
        yield started


def entries(server: EmulatorServer, session: str) -> list[object]:
    return [e for e in server.state.journal.entries() if e.session == session]


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_plain_answer_with_its_thoughts_and_usage(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"plain-{vertexai}", vertexai=vertexai)
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(include_thoughts=True))
    reply = gemini.models.generate_content(model=MODEL, contents="hello gemini", config=config)
    assert reply.text == "Hello from the emulator, Gemini style!"
    [candidate] = reply.candidates or []
    parts = candidate.content.parts if candidate.content else None
    assert parts is not None and parts[0].thought is True
    assert parts[0].text == "The user greets me; a short greeting back."
    assert candidate.finish_reason == types.FinishReason.STOP
    usage = reply.usage_metadata
    assert usage is not None and usage.thoughts_token_count and usage.candidates_token_count
    assert (
        usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count + usage.thoughts_token_count
    )
    assert reply.model_version == MODEL
    [entry] = server.state.journal.entries()[-1:]
    assert entry.path == (
        "/api/vertex-ai/v1/publishers/google/models/gemini-2.5-pro:generateContent"
        if vertexai
        else "/api/vertex-ai/v1beta/models/google/gemini-2.5-pro:generateContent"
    )
    assert entry.rule == "greeting" and entry.api == "vertex"


@pytest.mark.parametrize("vertexai", FORMS)
def test_thoughts_are_left_out_unless_asked_for(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"quiet-{vertexai}", vertexai=vertexai)  # kept: a dropped Client closes its connection
    reply = gemini.models.generate_content(model=MODEL, contents="hello gemini")
    parts = reply.candidates[0].content.parts if reply.candidates and reply.candidates[0].content else None
    assert parts is not None and [p.thought for p in parts] == [None]
    assert reply.usage_metadata is not None and reply.usage_metadata.thoughts_token_count


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_streamed_answer_is_the_same_text_with_the_finish_and_usage_on_the_last(
    server: EmulatorServer, vertexai: bool
) -> None:
    gemini = client(server, f"stream-{vertexai}", vertexai=vertexai)
    chunks = list(gemini.models.generate_content_stream(model=MODEL, contents="tell me a long story"))
    assert len(chunks) > 3
    assert "".join(c.text or "" for c in chunks) == (
        "Once upon a time there was a gateway that spoke every dialect of the machines."
    )
    assert [c.candidates[0].finish_reason for c in chunks if c.candidates][-1] == types.FinishReason.STOP
    assert all(c.candidates[0].finish_reason is None for c in chunks[:-1] if c.candidates)
    whole = gemini.models.generate_content(model=MODEL, contents="tell me a long story")
    assert chunks[-1].usage_metadata == whole.usage_metadata
    assert server.state.journal.entries()[-2].stream is True


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_function_calling_loop_passes_the_signature_back(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"loop-{vertexai}", vertexai=vertexai)
    config = types.GenerateContentConfig(tools=[WEATHER_TOOL])
    history = [types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")])]
    first = gemini.models.generate_content(model=GEMINI_3, contents=history, config=config)
    [call] = first.function_calls or []
    assert (call.name, call.args) == ("get_weather", {"city": "Paris"})
    model_turn = first.candidates[0].content if first.candidates else None
    assert model_turn is not None and model_turn.parts and model_turn.parts[0].thought_signature
    history += [
        model_turn,
        types.Content(
            role="user",
            parts=[types.Part.from_function_response(name="get_weather", response={"result": "sunny, 22 C"})],
        ),
    ]
    second = gemini.models.generate_content(model=GEMINI_3, contents=history, config=config)
    assert second.text == "The weather tool says: sunny, 22 C"
    assert server.state.journal.entries()[-1].warnings == []

    tampered = model_turn.model_copy(deep=True)
    assert tampered.parts
    tampered.parts[0].thought_signature = b"\x12\x08forged" + bytes(40)
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(model=MODEL, contents=[history[0], tampered, history[2]], config=config)
    assert refused.value.code == 400
    assert refused.value.message == "contents[1].parts[0].thoughtSignature: Corrupted thought signature."

    edited = model_turn.model_copy(deep=True)
    assert edited.parts and edited.parts[0].function_call
    edited.parts[0].function_call.args = {"city": "Lyon"}
    with pytest.raises(errors.ClientError, match="Corrupted thought signature"):
        gemini.models.generate_content(model=MODEL, contents=[history[0], edited, history[2]], config=config)


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_gemini_3_call_without_its_signature_is_refused_in_googles_words(
    server: EmulatorServer, vertexai: bool
) -> None:
    gemini = client(server, f"unsigned-{vertexai}", vertexai=vertexai)
    contents = [
        types.Content(role="user", parts=[types.Part(text="What is the weather in Paris?")]),
        types.Content(role="model", parts=[types.Part.from_function_call(name="get_weather", args={"city": "Paris"})]),
        types.Content(
            role="user", parts=[types.Part.from_function_response(name="get_weather", response={"result": "sunny"})]
        ),
    ]
    config = types.GenerateContentConfig(tools=[WEATHER_TOOL])
    with pytest.raises(errors.ClientError) as refused:
        gemini.models.generate_content(model=GEMINI_3, contents=contents, config=config)
    assert refused.value.code == 400
    if vertexai:
        assert refused.value.message == (
            "Unable to submit request because function call `get_weather` in the 1. content block is missing a "
            "`thought_signature`. Learn more: "
            "https://docs.cloud.google.com/vertex-ai/generative-ai/docs/thought-signatures"
        )
    else:
        assert refused.value.message == (
            "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
            "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
            "data, function call `default_api:get_weather` , position 1. Please refer to "
            "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
        )
    # a Gemini 2.5 model takes the same conversation
    assert gemini.models.generate_content(model=MODEL, contents=contents, config=config).text == (
        "The weather tool says: sunny"
    )


@pytest.mark.parametrize("vertexai", FORMS)
def test_automatic_function_calling_completes_the_loop(server: EmulatorServer, vertexai: bool) -> None:
    asked: list[str] = []

    def get_weather(city: str) -> str:
        """The weather in a city."""
        asked.append(city)
        return "sunny"

    gemini = client(server, f"afc-{vertexai}", vertexai=vertexai)
    chat = gemini.chats.create(model=GEMINI_3, config=types.GenerateContentConfig(tools=[get_weather]))
    reply = chat.send_message("What is the weather in Paris?")
    assert asked == ["Paris"]
    assert reply.text == "The weather tool says: sunny"


@pytest.mark.parametrize("vertexai", FORMS)
def test_count_tokens_is_the_prompt_count_of_the_same_request(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"count-{vertexai}", vertexai=vertexai)
    counted = gemini.models.count_tokens(model=MODEL, contents="tell me a long story")
    reply = gemini.models.generate_content(model=MODEL, contents="tell me a long story")
    assert reply.usage_metadata is not None
    assert counted.total_tokens == reply.usage_metadata.prompt_token_count


@pytest.mark.parametrize("vertexai", FORMS)
def test_models_list_reads_the_catalogue(server: EmulatorServer, vertexai: bool) -> None:
    gemini = client(server, f"list-{vertexai}", vertexai=vertexai)
    names = [model.name for model in gemini.models.list()]
    assert MODEL in names and GEMINI_3 in names
    if vertexai:  # the publisher's models only
        assert all(name and name.startswith("google/") for name in names)
    else:
        assert "anthropic/claude-sonnet-4.5" in names


@pytest.mark.parametrize("vertexai", FORMS)
def test_structured_output_fits_the_schema_when_no_rule_scripts_it(server: EmulatorServer, vertexai: bool) -> None:
    schema = types.Schema(
        type=types.Type.OBJECT,
        properties={"city": types.Schema(type=types.Type.STRING), "degrees": types.Schema(type=types.Type.INTEGER)},
        required=["city", "degrees"],
    )
    config = types.GenerateContentConfig(response_mime_type="application/json", response_schema=schema)
    gemini = client(server, f"json-{vertexai}", vertexai=vertexai)
    reply = gemini.models.generate_content(model=MODEL, contents="Report a city's temperature", config=config)
    value = json.loads(reply.text or "")
    assert isinstance(value["city"], str) and isinstance(value["degrees"], int)


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_refused_key_is_zenmux_403(make_server: MakeServer, vertexai: bool) -> None:
    server = make_server(SCENARIO, api_keys=["sk-ai-v1-good"])
    wrong = client(server, "refused", vertexai=vertexai, api_key="sk-ai-v1-wrong")
    with pytest.raises(errors.ClientError) as refused:
        wrong.models.generate_content(model=MODEL, contents="hello gemini")
    assert refused.value.code == 403
    assert refused.value.message == "You have no permission to access this resource"
    good = client(server, "good", vertexai=vertexai, api_key="sk-ai-v1-good")
    assert good.models.generate_content(model=MODEL, contents="hello gemini").text


@pytest.mark.parametrize("vertexai", FORMS)
def test_a_refusal_is_a_safety_finish_and_a_scripted_error_reaches_the_sdk(
    server: EmulatorServer, vertexai: bool
) -> None:
    gemini = client(server, f"refusal-{vertexai}", vertexai=vertexai)
    reply = gemini.models.generate_content(model=MODEL, contents="something forbidden")
    assert reply.candidates and reply.candidates[0].finish_reason == types.FinishReason.SAFETY
    if vertexai:  # the SDK reads `finishMessage` from Vertex AI's answers only
        assert reply.candidates[0].finish_message == "I can't help with that."
    with pytest.raises(errors.ClientError) as busy:
        gemini.models.generate_content(model=MODEL, contents="you are too busy")
    assert (busy.value.code, busy.value.message) == (429, "Slow down")


@pytest.mark.filterwarnings("ignore:Inheritance class AiohttpClientSession:DeprecationWarning")  # google-genai's
@pytest.mark.parametrize("vertexai", FORMS)
def test_the_async_client_streams_and_calls(server: EmulatorServer, vertexai: bool) -> None:
    sync = client(server, f"async-{vertexai}", vertexai=vertexai)
    gemini = sync.aio

    async def run() -> tuple[str, list[str]]:
        async with gemini:
            pieces = [
                c.text or ""
                async for c in await gemini.models.generate_content_stream(model=MODEL, contents="tell me a long story")
            ]
            called = await gemini.models.generate_content(
                model=MODEL,
                contents="What is the weather in Paris?",
                config=types.GenerateContentConfig(tools=[WEATHER_TOOL]),
            )
        return "".join(pieces), [c.name or "" for c in called.function_calls or []]

    text, calls = asyncio.run(run())
    assert text.startswith("Once upon a time") and calls == ["get_weather"]
