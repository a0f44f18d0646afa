"""The rerank face over HTTP: ordering, top_n, return_documents, usage, determinism, scripted
scores, multimodal content and the 400s."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest

from tests.conftest import served_yaml
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer

TEXT = "alibaba/gte-rerank-v2"
MULTIMODAL = "alibaba/gte-multimodal-rerank"
DOCUMENTS = [
    "Shanghai is the largest city in China.",
    "Beijing is the capital of China.",
    "Bananas are rich in potassium.",
]
SCENARIO = """\
rules:
  - name: pinned
    match: {api: rerank, last_user: {contains: pinned}}
    reply: {scores: {"Bananas are rich in potassium.": 0.99}}
  - name: instructed
    match: {api: rerank, system: {contains: "legal"}}
    reply: {scores: {"Beijing is the capital of China.": 0.01}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("rerank"), SCENARIO) as started:
        yield started


def rerank(server: EmulatorServer, body: object) -> Raw:
    return http(
        f"{server.base_url}/rerank",
        orjson.dumps(body),
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )


def ask(query: str, model: str = TEXT, documents: list[object] | None = None, **parameters: object) -> object:
    return {
        "model": model,
        "input": {"query": query, "documents": DOCUMENTS if documents is None else documents},
        "parameters": parameters,
    }


def test_results_are_ordered_by_relevance_and_top_n_cuts(server: EmulatorServer) -> None:
    reply = rerank(server, ask("What is the capital of China?", top_n=2, return_documents=True))
    assert reply.status == 200
    body = reply.json()
    assert (body["object"], body["model"]) == ("list", TEXT)
    assert [r["index"] for r in body["results"]] == [1, 0]
    assert body["results"][0]["document"] == DOCUMENTS[1]
    scores = [r["relevance_score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    assert body["usage"]["prompt_tokens"] == body["usage"]["total_tokens"] > 0


def test_documents_are_left_out_unless_asked_and_the_answer_is_deterministic(server: EmulatorServer) -> None:
    first = rerank(server, ask("capital of China"))
    assert len(first.json()["results"]) == 3
    assert all("document" not in r for r in first.json()["results"])
    assert rerank(server, ask("capital of China")).text == first.text


def test_a_rule_scripts_a_documents_score(server: EmulatorServer) -> None:
    reply = rerank(server, ask("pinned: capital of China"))
    assert reply.headers["x-emulator-rule"] == "pinned"
    assert reply.json()["results"][0] == {"index": 2, "relevance_score": 0.99}


def test_multimodal_content_counts_image_tokens(server: EmulatorServer) -> None:
    documents = [{"image": "https://example.com/cat.jpg"}, {"text": "A cat chases a red ball."}]
    body = rerank(server, ask("a cat playing with a ball", MULTIMODAL, documents, return_documents=True)).json()
    assert body["usage"]["image_tokens"] == 512
    assert body["results"][0] == {
        "index": 1,
        "relevance_score": body["results"][0]["relevance_score"],
        "document": {"text": "A cat chases a red ball."},
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": TEXT}, "Parameter input is required"),
        (ask("q", documents=[]), "Parameter input.documents is not valid"),
        ({"model": TEXT, "input": {"documents": ["a"]}}, "Parameter input.query is required"),
        (ask("q", top_n=0), "Parameter parameters.top_n is not valid"),
        (ask("q", documents=[{"image": "https://example.com/a.png"}]), "Parameter input.documents[0] is not valid"),
        (ask("q", model="openai/text-embedding-3-small"), "Model openai/text-embedding-3-small is not valid"),
    ],
)
def test_bad_requests_are_zenmuxs_400(server: EmulatorServer, body: object, message: str) -> None:
    reply = rerank(server, body)
    assert reply.status == 400
    assert reply.json()["error"]["message"].startswith(message)


def test_null_parameters_are_absent_parameters(server: EmulatorServer) -> None:
    """Issue 40, item 4: `parameters: null` was a 500 (the instruction read through None); null is
    absent here, as each parameter's own null is."""
    body = {"model": TEXT, "input": {"query": "capital of China", "documents": DOCUMENTS}}
    absent = rerank(server, body)
    reply = rerank(server, {**body, "parameters": None})
    assert reply.status == 200, reply.text
    assert reply.text == absent.text
    instructed = rerank(server, {**body, "parameters": {"instruct": "rank legal texts"}})
    assert instructed.headers["x-emulator-rule"] == "instructed"


@pytest.mark.parametrize("parameters", [0, False, "", [], 7, "top_n", [1]], ids=repr)
def test_parameters_that_are_not_an_object_are_a_400_naming_them(server: EmulatorServer, parameters: object) -> None:
    """Issue 40, item 4: 0, false, "" and [] were read as no parameters, then a 500."""
    body = {"model": TEXT, "input": {"query": "capital of China", "documents": DOCUMENTS}, "parameters": parameters}
    reply = rerank(server, body)
    assert reply.status == 400, reply.text
    error = reply.json()["error"]
    assert error["message"] == "Parameter parameters is not valid: expected an object", error
