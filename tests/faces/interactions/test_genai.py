"""The Interactions face through google-genai's `client.interactions`: the text a rule scripts,
usage, the stream, system instructions, function calls and their results, ids with the seed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google.genai import interactions

from tests.conftest import MakeServer, served_yaml
from tests.faces.interactions.helpers import MODEL, SCENARIO, WEATHER, client
from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
from zenmux_emulator.pytest_plugin.server import EmulatorServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("interactions"), SCENARIO) as started:
        yield started


def test_create_answers_the_rules_text_with_usage(server: EmulatorServer) -> None:
    genai_client = client(server, "create")  # kept: a dropped client closes its connection
    made = genai_client.interactions.create(model=MODEL, input="What is the capital of France?")
    assert made.status == "completed" and made.model == MODEL
    assert made.output_text == "The capital of France is Paris."
    assert made.id and made.id.startswith("v1_")
    assert made.created == "2026-01-01T00:00:00Z" and made.updated == made.created
    usage = made.usage
    assert usage is not None and usage.total_input_tokens and usage.total_output_tokens
    assert usage.total_tokens == usage.total_input_tokens + usage.total_output_tokens
    assert usage.input_tokens_by_modality is not None
    assert [(m.modality, m.tokens) for m in usage.input_tokens_by_modality] == [("text", usage.total_input_tokens)]
    assert (usage.total_cached_tokens, usage.total_thought_tokens) == (0, 0)


def test_the_stream_delivers_the_same_text_in_deltas(server: EmulatorServer) -> None:
    genai_client = client(server, "stream")  # kept: a dropped client closes its connection
    stream = genai_client.interactions.create(model=MODEL, input="What is the capital of France?", stream=True)
    seen = list(stream)
    kinds = [type(event).__name__ for event in seen]
    assert kinds[:3] == ["InteractionCreatedEvent", "InteractionStatusUpdate", "StepStart"]
    assert kinds[-3:] == ["StepStop", "InteractionStatusUpdate", "InteractionCompletedEvent"]
    text = "".join(
        e.delta.text
        for e in seen
        if isinstance(e, interactions.StepDelta) and isinstance(e.delta, interactions.TextDelta)
    )
    assert text == "The capital of France is Paris."
    done = seen[-1]
    assert isinstance(done, interactions.InteractionCompletedEvent)
    assert done.interaction.status == "completed" and done.interaction.usage is not None
    assert done.interaction.usage.total_output_tokens == 8


def test_system_instruction_and_api_narrow_the_rule(server: EmulatorServer) -> None:
    genai_client = client(server, "system")  # kept: a dropped client closes its connection
    made = genai_client.interactions.create(model=MODEL, input="ahoy", system_instruction="Talk like a pirate.")
    assert made.output_text == "Arr, ahoy"


def test_a_reasoning_reply_is_a_thought_step_and_thought_tokens(server: EmulatorServer) -> None:
    genai_client = client(server, "thought")  # kept: a dropped client closes its connection
    made = genai_client.interactions.create(
        model=MODEL, input="think first", generation_config={"thinking_level": "high"}
    )
    assert made.steps is not None
    assert [step.type for step in made.steps] == ["thought", "model_output"]
    assert made.output_text == "Thought it through."
    assert made.usage is not None and made.usage.total_thought_tokens
    assert made.usage.total_tokens == (
        made.usage.total_input_tokens + made.usage.total_output_tokens + made.usage.total_thought_tokens
    )


def test_a_function_call_then_its_result(server: EmulatorServer) -> None:
    genai_client = client(server, "tools")
    first = genai_client.interactions.create(model=MODEL, input="weather in Paris?", tools=[WEATHER])
    assert first.status == "requires_action" and first.steps is not None
    [call] = first.steps
    assert isinstance(call, interactions.FunctionCallStep)
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"}) and call.id
    history = [
        {"type": "user_input", "content": [{"type": "text", "text": "weather in Paris?"}]},
        {"type": "function_call", "id": call.id, "name": call.name, "arguments": call.arguments},
        {"type": "function_result", "call_id": call.id, "name": call.name, "result": {"forecast": "sunny"}},
    ]
    second = genai_client.interactions.create(model=MODEL, input=history, tools=[WEATHER])
    assert (second.status, second.output_text) == ("completed", "The weather tool says: sunny")


def test_media_parts_count_under_their_modality(server: EmulatorServer) -> None:
    genai_client = client(server, "media")  # kept: a dropped client closes its connection
    made = genai_client.interactions.create(
        model=MODEL,
        input=[
            {"type": "text", "text": "what is in this picture?"},
            {"type": "image", "data": "AAAA", "mime_type": "image/png"},
        ],
    )
    assert made.output_text == "A kite."
    assert made.usage is not None and made.usage.input_tokens_by_modality is not None
    by_modality = {m.modality: m.tokens for m in made.usage.input_tokens_by_modality}
    assert by_modality["image"] == 85 and by_modality["text"] == made.usage.total_input_tokens - 85


def test_ids_are_the_same_with_the_same_seed(make_server: MakeServer) -> None:
    def first_id(seed: int) -> str | None:
        genai_client = client(make_server(SCENARIO, seed=seed), "ids")
        made = genai_client.interactions.create(model=MODEL, input="What is the capital of France?")
        return made.id

    assert first_id(7) == first_id(7)
    assert first_id(7) != first_id(8)


@pytest.mark.parametrize("stream", [False, True])
def test_the_verdict_reads_function_calls_and_their_results(make_server: MakeServer, stream: bool) -> None:
    handle = ZenmuxHandle(server=make_server(SCENARIO), nodeid=f"interactions::verdict[{stream}]")
    genai_client = handle.client("interactions")
    made = genai_client.interactions.create(model=MODEL, input="weather in Paris?", tools=[WEATHER], stream=stream)
    steps = [event.step for event in made if isinstance(event, interactions.StepStart)] if stream else made.steps
    [call] = [step for step in steps or () if isinstance(step, interactions.FunctionCallStep)]
    [finding] = handle.verdict()
    assert (finding.check, finding.seq) == ("tool_calls", handle.requests[0].seq)
    history = [
        {"type": "user_input", "content": [{"type": "text", "text": "weather in Paris?"}]},
        {"type": "function_call", "id": call.id, "name": call.name, "arguments": {"city": "Paris"}},
        {"type": "function_result", "call_id": call.id, "name": call.name, "result": {"forecast": "sunny"}},
    ]
    genai_client.interactions.create(model=MODEL, input=history, tools=[WEATHER])
    assert handle.verdict() == []
    handle.close_clients()
