"""The embeddings face through the official openai SDK and raw HTTP: float and base64, batches,
`dimensions`, unit length, similarity, determinism, the 400s, scripted vectors, errors, faults,
sequences and the journal."""

from __future__ import annotations

import base64
import math
import struct
import urllib.error
from collections.abc import Iterator, Sequence
from http.client import HTTPException
from pathlib import Path

import openai
import orjson
import pytest

from tests.conftest import served_yaml
from tests.support.clients import API_KEY, Raw, http, sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

SMALL = "openai/text-embedding-3-small"
LARGE = "openai/text-embedding-3-large"
SCENARIO = """\
rules:
  - name: scripted-vector
    match: {api: embeddings, any_message: {equals: "the scripted text"}}
    reply: {vectors: {"the scripted text": [3, 4]}}
  - name: overloaded
    match: {api: embeddings, last_user: {contains: overload}}
    reply: {error: {status: 429, message: "Slow down", headers: {Retry-After: "3"}}}
  - name: hang-up
    match: {api: embeddings, last_user: {contains: hang up}}
    reply: {fault: {kind: close}}
  - name: flaky
    match: {api: embeddings, last_user: {contains: flaky}}
    replies: [{error: {status: 503}}, {content: ok}]
  - name: chat-only
    match: {last_user: {contains: anything}}
    reply: {content: "a chat reply"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("embeddings"), SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as made:
        yield made


def post(server: EmulatorServer, body: object) -> Raw:
    return http(
        f"{server.base_url}/embeddings",
        orjson.dumps(body),
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_one_text_gets_a_unit_vector_of_the_models_dimensions(client: openai.OpenAI) -> None:
    reply = client.embeddings.create(model=SMALL, input="ZenMux is an LLM API aggregation service.")
    [item] = reply.data
    assert (reply.object, reply.model, item.object, item.index) == ("list", SMALL, "embedding", 0)
    assert len(item.embedding) == 1536
    assert math.isclose(math.sqrt(sum(v * v for v in item.embedding)), 1.0, rel_tol=1e-6)  # float32 on the wire
    assert reply.usage.prompt_tokens == reply.usage.total_tokens > 0
    assert len(client.embeddings.create(model=LARGE, input="hello").data[0].embedding) == 3072


def test_a_batch_keeps_its_order_and_similar_texts_are_closer(client: openai.OpenAI) -> None:
    texts = ["The cat sat on the mat.", "A cat was sitting on a mat.", "Quarterly revenue grew by four percent."]
    reply = client.embeddings.create(model=SMALL, input=texts)
    assert [item.index for item in reply.data] == [0, 1, 2]
    cat, sitting, revenue = (item.embedding for item in reply.data)
    assert cosine(cat, sitting) > cosine(cat, revenue) + 0.2
    one_by_one = [client.embeddings.create(model=SMALL, input=text).data[0].embedding for text in texts]
    assert one_by_one == [item.embedding for item in reply.data]
    assert reply.usage.prompt_tokens == sum(
        client.embeddings.create(model=SMALL, input=text).usage.prompt_tokens for text in texts
    )


def test_dimensions_shorten_and_base64_is_little_endian_float32(client: openai.OpenAI, server: EmulatorServer) -> None:
    short = client.embeddings.create(model=LARGE, input="short vectors", dimensions=256)
    assert len(short.data[0].embedding) == 256
    assert math.isclose(sum(v * v for v in short.data[0].embedding), 1.0, rel_tol=1e-6)
    # the SDK asks for base64 by default and decodes it; the raw bytes are little-endian float32
    raw = post(server, {"model": LARGE, "input": "short vectors", "dimensions": 256, "encoding_format": "base64"})
    encoded = raw.json()["data"][0]["embedding"]
    assert isinstance(encoded, str)
    decoded = struct.unpack("<256f", base64.b64decode(encoded))
    assert decoded == pytest.approx(short.data[0].embedding, abs=1e-7)
    floats = post(server, {"model": LARGE, "input": "short vectors", "dimensions": 256, "encoding_format": "float"})
    assert floats.json()["data"][0]["embedding"] == pytest.approx(decoded, abs=1e-7)


def test_a_batch_may_hold_more_tokens_than_one_input_may(client: openai.OpenAI) -> None:
    reply = client.embeddings.create(model=SMALL, input=["word " * 4000] * 3, dimensions=16)
    assert len(reply.data) == 3
    assert reply.usage.prompt_tokens > 8192


def test_token_arrays_are_inputs_too(client: openai.OpenAI) -> None:
    reply = client.embeddings.create(model=SMALL, input=[[1, 2, 3], [1, 2, 3, 4]])
    assert reply.usage.prompt_tokens == 7
    assert cosine(reply.data[0].embedding, reply.data[1].embedding) > 0.5


def test_the_same_request_is_byte_identical_and_the_seed_changes_it(server: EmulatorServer, tmp_path: Path) -> None:
    body = {"model": SMALL, "input": ["determinism", "matters"], "dimensions": 32, "encoding_format": "float"}
    first, second = post(server, body), post(server, body)
    assert first.text == second.text
    (tmp_path / "s.yaml").write_text("rules: []\n", encoding="utf-8")
    from zenmux_emulator.settings import Settings

    with EmulatorServer(Settings(port=0, scenarios=[str(tmp_path)], watch=False, seed=7)) as other:
        assert post(other, body).json()["data"] != first.json()["data"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"input": "x"}, "Parameter model is required"),
        ({"model": SMALL}, "Parameter input is required"),
        ({"model": SMALL, "input": ""}, "Parameter input is not valid: expected a non-empty string"),
        ({"model": SMALL, "input": []}, "Parameter input is not valid: expected at least one input"),
        ({"model": SMALL, "input": ["a", ""]}, "Parameter input[1] is not valid: expected a non-empty string"),
        ({"model": SMALL, "input": ["a"] * 2049}, "Parameter input is not valid: at most 2048 inputs, got 2049"),
        ({"model": SMALL, "input": "word " * 9000}, "Parameter input is not valid: at most 8192 tokens per input"),
        ({"model": "openai/gpt-5.4-mini", "input": "x"}, "Model openai/gpt-5.4-mini is not valid"),
        ({"model": SMALL, "input": "x", "dimensions": 2000}, "Parameter dimensions is not valid"),
        ({"model": SMALL, "input": "x", "encoding_format": "int8"}, "Parameter encoding_format is not valid"),
    ],
)
def test_bad_requests_are_zenmuxs_400_naming_the_field(server: EmulatorServer, body: object, message: str) -> None:
    reply = post(server, body)
    assert reply.status == 400
    error = reply.json()["error"]
    assert error["type"] == "invalid_params"
    assert error["message"].startswith(message)


def test_the_sdk_raises_bad_request_for_a_chat_model(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="not an embedding model"):
        client.embeddings.create(model="openai/gpt-5.4-mini", input="hello")


def test_a_rule_scripts_the_vector_of_an_exact_text(client: openai.OpenAI) -> None:
    reply = client.embeddings.create(
        model=SMALL, input=["the scripted text", "another"], dimensions=4, encoding_format="float"
    )
    assert reply.data[0].embedding == pytest.approx([0.6, 0.8, 0.0, 0.0])
    assert reply.data[1].embedding != reply.data[0].embedding


def test_rules_give_errors_faults_and_sequences(client: openai.OpenAI, server: EmulatorServer) -> None:
    with pytest.raises(openai.RateLimitError) as limited:
        client.embeddings.create(model=SMALL, input="please overload")
    assert limited.value.response.headers["retry-after"] == "3"
    with pytest.raises(openai.InternalServerError):
        client.embeddings.create(model=SMALL, input="flaky one")
    assert len(client.embeddings.create(model=SMALL, input="flaky one").data) == 1
    with pytest.raises((ConnectionError, HTTPException, urllib.error.URLError)):
        post(server, {"model": SMALL, "input": "hang up now"})


def test_rules_without_api_do_not_answer_embeddings_and_the_journal_records_them(
    client: openai.OpenAI, server: EmulatorServer
) -> None:
    reply = client.embeddings.with_raw_response.create(model=SMALL, input="anything at all")
    assert "x-emulator-rule" not in reply.headers
    entry = server.state.journal.entries()[-1]
    assert (entry.api, entry.path, entry.status, entry.rule) == ("embeddings", "/api/v1/embeddings", 200, None)
    generation = http(
        f"{server.base_url}/management/generation?id={reply.headers['x-generation-id']}",
        headers={"Authorization": f"Bearer {API_KEY}"},
    )
    assert generation.json()["api"] == "embeddings"
    assert generation.json()["nativeTokens"]["prompt_tokens"] == reply.parse().usage.prompt_tokens
