"""What embeddings and rerank get from the shared request path: the catalogue's admission, rate
limits and balances, the pytest plugin's base URL, record and replay."""

from __future__ import annotations

from pathlib import Path

import openai
import orjson
import pytest
import yaml

from tests.conftest import FROZEN, MakeServer
from tests.support.clients import API_KEY, http, sdk
from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.command import record_settings
from zenmux_emulator.record.store import FILENAME
from zenmux_emulator.settings import Settings

SMALL = "openai/text-embedding-3-small"


def test_an_embedding_model_is_refused_on_the_chat_face_and_not_listed(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    with sdk(server, "owners") as client:
        with pytest.raises(openai.BadRequestError, match="it is a model of the embeddings API"):
            client.chat.completions.create(model=SMALL, messages=[{"role": "user", "content": "hi"}])
        listed = {model.id for model in client.models.list()}
    assert SMALL not in listed and "alibaba/gte-rerank-v2" not in listed


def test_rate_limits_and_balances_apply_to_embeddings(make_server: MakeServer) -> None:
    server = make_server("""\
        settings:
          limits: {rpm: 2}
          balances: {sk-ai-v1-poor: 0.0000001}
        rules: []
    """)
    with sdk(server, "limits") as client:
        first = client.embeddings.with_raw_response.create(model=SMALL, input="one")
        assert first.headers["x-ratelimit-remaining-requests"] == "1"
        client.embeddings.create(model=SMALL, input="two")
        with pytest.raises(openai.RateLimitError):
            client.embeddings.create(model=SMALL, input="three")
    with sdk(server, "poor", api_key="sk-ai-v1-poor") as poor:
        poor.embeddings.create(model=SMALL, input="a long enough text to cost more than the balance " * 20)
        with pytest.raises(openai.APIStatusError) as spent:
            poor.embeddings.create(model=SMALL, input="again")
    assert spent.value.status_code == 402


def test_the_plugin_gives_their_base_url(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    handle = ZenmuxHandle(server=server, nodeid="embeddings::base")
    assert handle.url("embeddings") == handle.url("rerank") == handle.url("platform") == handle.base_url


def test_record_and_replay_embeddings_and_rerank(tmp_path: Path) -> None:
    upstream_dir, out = tmp_path / "upstream", tmp_path / "out"
    upstream_dir.mkdir()
    (upstream_dir / "s.yaml").write_text("rules: []\n", encoding="utf-8")
    rerank = {"model": "alibaba/gte-rerank-v2", "input": {"query": "capital", "documents": ["Paris", "a capital"]}}
    upstream_settings = Settings(port=0, scenarios=[str(upstream_dir)], clock=FROZEN, watch=False, seed=99)
    with EmulatorServer(upstream_settings) as upstream:
        given = record_settings({"out": str(out), "upstream": upstream.origin, "port": 0})
        with EmulatorServer(Settings(**given)) as recorder, sdk(recorder, "rec") as client:
            live = client.embeddings.create(model=SMALL, input="recorded text", encoding_format="float")
            live_rerank = http(
                f"{recorder.base_url}/rerank",
                orjson.dumps(rerank),
                method="POST",
                headers={"Authorization": f"Bearer {API_KEY}"},
            )
    document = yaml.safe_load((out / FILENAME).read_text(encoding="utf-8"))
    assert {rule["match"]["api"] for rule in document["rules"]} == {"embeddings", "rerank"}
    with (
        EmulatorServer(Settings(port=0, scenarios=[str(out)], clock=FROZEN, watch=False)) as replay,
        sdk(replay, "replay") as client,
    ):
        again = client.embeddings.create(model=SMALL, input="recorded text", encoding_format="float")
        again_rerank = http(
            f"{replay.base_url}/rerank",
            orjson.dumps(rerank),
            method="POST",
            headers={"Authorization": f"Bearer {API_KEY}"},
        )
        shorter = client.embeddings.create(model=SMALL, input="recorded text", encoding_format="float", dimensions=1024)
    assert again.data[0].embedding == live.data[0].embedding  # the upstream's (seed 99), not the replay's own
    assert again_rerank.json() == live_rerank.json()
    recorded = {rule["match"]["api"]: rule["reply"] for rule in document["rules"]}
    assert list(recorded["embeddings"]["vectors"]) == ["recorded text"]
    assert set(recorded["rerank"]["scores"]) == {"Paris", "a capital"}
    # the recorded vector, shortened to the dimensions asked for and made unit length again
    cut = live.data[0].embedding[:1024]
    norm = sum(v * v for v in cut) ** 0.5
    assert shorter.data[0].embedding == pytest.approx([v / norm for v in cut])
