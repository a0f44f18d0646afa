"""`zenmux-emulator catalogue pull`, `catalogue diff` and `serve --catalogue FILE` as a user runs
them (real processes), against a stand-in gateway whose listing is a second emulator's with one
model more, one repriced and one gone. Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import asyncio
import datetime
import json
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from aiohttp import web

from tests.cli.test_cli import CONSOLE_SCRIPT, Served, clean_env, run
from tests.conftest import MakeServer

KEY = "sk-ai-v1-catalogue-secret-0123456789"
NEW = "acme/brand-new-model"
REPRICED = "anthropic/claude-haiku-4.5"
GONE = "anthropic/claude-3.5-haiku"
TIERED = {
    "prompt": [
        {
            "value": 2,
            "unit": "perMTokens",
            "currency": "USD",
            "conditions": {"prompt_tokens": {"unit": "kTokens", "gte": 0, "lt": 128}},
        },
        {
            "value": 4,
            "unit": "perMTokens",
            "currency": "USD",
            "conditions": {"prompt_tokens": {"unit": "kTokens", "gte": 128}},
        },
    ],
    "completion": [{"value": 8, "unit": "perMTokens", "currency": "USD"}],
    "web_search": [{"value": 0.01, "unit": "perCount", "currency": "USD"}],
}
EXTRA = {
    "id": NEW,
    "object": "model",
    "display_name": "Acme: Brand New",
    "created": 1790000000,
    "owned_by": "acme",
    "input_modalities": ["text"],
    "output_modalities": ["text"],
    "capabilities": {"reasoning": False},
    "context_length": 256000,
    "pricings": TIERED,
}


VERTEX_ONLY = "google/gemini-vertex-only"
VERTEX_PAGES = [
    {
        "models": [
            {"name": "google/gemini-2.5-pro", "displayName": "listed on /api/v1 too", "inputTokenLimit": 5},
        ],
        "nextPageToken": "page-2",
    },
    {
        "models": [
            {
                "name": VERTEX_ONLY,
                "displayName": "Google: Gemini on Vertex only",
                "description": "a model only the Vertex AI face lists",
                "inputTokenLimit": 1048576,
                "outputTokenLimit": 65536,
                "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
                "thinking": True,
            }
        ]
    },
]
"""The Vertex AI face's `GET /api/vertex-ai/v1beta/models`, in Google's shape and in two pages: one
model the main listing has (its facts come from there), one only this listing has."""


def changed(listing: dict[str, Any]) -> dict[str, Any]:
    """The gateway since the snapshot: a model added, one repriced, one gone."""
    data = [dict(m) for m in listing["data"] if m["id"] != GONE]
    for model in data:
        if model["id"] == REPRICED:
            model["pricings"] = {
                **model["pricings"],
                "prompt": [{"value": 1.5, "unit": "perMTokens", "currency": "USD"}],
            }
    return {**listing, "data": [*data, EXTRA]}


class Gateway:
    """Serves `GET /api/v1/models` (the listing, through `change`) to requests with the key (401
    else), and the Vertex AI face's listing's pages (404 when there are none)."""

    def __init__(
        self,
        listing: dict[str, Any],
        change: Callable[[dict[str, Any]], dict[str, Any]],
        vertex: list[dict[str, Any]] | None,
    ) -> None:
        self.listing = change(listing)
        self.vertex = vertex
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.port = 0

    async def models(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return web.json_response({"error": {"type": "authentication_error", "message": "no key"}}, status=401)
        return web.json_response(self.listing)

    async def vertex_models(self, request: web.Request) -> web.Response:
        if self.vertex is None:
            raise web.HTTPNotFound()
        return web.json_response(self.vertex[1 if request.query.get("pageToken") == "page-2" else 0])

    def start(self) -> Gateway:
        self.thread.start()

        async def serve() -> int:
            app = web.Application()
            app.router.add_get("/api/v1/models", self.models)
            app.router.add_get("/api/vertex-ai/v1beta/models", self.vertex_models)
            self.runner = web.AppRunner(app)
            await self.runner.setup()
            await web.TCPSite(self.runner, "127.0.0.1", 0).start()
            return int(self.runner.addresses[0][1])

        self.port = asyncio.run_coroutine_threadsafe(serve(), self.loop).result(30)
        return self

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)
        self.loop.close()


def listing_of(origin: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{origin}/api/v1/models", timeout=30) as response:
        return dict(json.loads(response.read()))


@pytest.fixture
def gateways(make_server: MakeServer) -> Iterator[Callable[..., Gateway]]:
    listing = listing_of(make_server().origin)
    started: list[Gateway] = []

    def make(
        change: Callable[[dict[str, Any]], dict[str, Any]] = changed, vertex: list[dict[str, Any]] | None = VERTEX_PAGES
    ) -> Gateway:
        started.append(Gateway(listing, change, vertex).start())
        return started[-1]

    try:
        yield make
    finally:
        for gateway in started:
            gateway.stop()


def pull(gateway: Gateway, out: Path) -> Any:
    return run(
        [
            str(CONSOLE_SCRIPT),
            "catalogue",
            "pull",
            "--upstream",
            f"http://127.0.0.1:{gateway.port}/api/v1",
            "--out",
            str(out),
        ],
        env=clean_env(ZENMUX_API_KEY=KEY),
    )


def test_pull_writes_the_gateway_s_models_with_their_tiered_prices_and_not_the_key(
    gateways: Callable[..., Gateway], tmp_path: Path
) -> None:
    out = tmp_path / "catalogue.json"
    done = pull(gateways(), out)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert KEY not in text + done.stdout + done.stderr
    document = json.loads(text)
    assert document["snapshot"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    facts = document["models"][NEW]
    assert facts["pricing"] == {
        "prompt": 2.0,
        "completion": 8.0,
        "tiers": [{"from_prompt_tokens": 128000, "prompt": 4.0, "completion": 8.0}],
    }
    assert facts["context_length"] == 256000 and facts["preferred_face"] == "chat"
    assert GONE not in document["models"]
    vertex = document["models"][VERTEX_ONLY]  # only the Vertex AI face lists it (on its second page)
    assert (vertex["display_name"], vertex["context_length"], vertex["max_output_tokens"]) == (
        "Google: Gemini on Vertex only",
        1048576,
        65536,
    )
    assert vertex["reasoning"] is True and vertex["preferred_face"] == "chat"
    assert document["models"]["google/gemini-2.5-pro"]["context_length"] != 5  # the main listing's facts
    no_key = run(
        [
            str(CONSOLE_SCRIPT),
            "catalogue",
            "pull",
            "--upstream",
            f"http://127.0.0.1:{gateways().port}",
            "--out",
            str(tmp_path / "x.json"),
        ]
    )
    assert no_key.returncode == 1 and "401" in no_key.stderr and not (tmp_path / "x.json").exists()


def test_serve_catalogue_admits_the_new_model_and_prices_it_from_the_file(
    gateways: Callable[..., Gateway], tmp_path: Path
) -> None:
    out = tmp_path / "catalogue.json"
    assert pull(gateways(), out).returncode == 0
    empty = tmp_path / "scenarios"
    empty.mkdir()
    for argv, env, admitted in (
        (["--catalogue", str(out)], clean_env(), True),
        ([], clean_env(ZENMUX_EMULATOR_CATALOGUE=str(out)), True),  # the environment variable
        ([], clean_env(), False),  # the packaged snapshot does not have it
    ):
        served = Served(
            [str(CONSOLE_SCRIPT), "serve", "--port", "0", "--scenarios", str(empty), "--no-watch", *argv],
            tmp_path / "stderr.log",
            env,
        )
        try:
            served.wait_listening()
            summary = served._lines.get(timeout=30)
            with served.client() as client:
                if admitted:
                    assert f"from {out}" in summary
                    answer = client.chat.completions.create(model=NEW, messages=[{"role": "user", "content": "hi"}])
                    assert answer.model == NEW
                    listed = client.models.retrieve(NEW).model_dump()
                    assert [p["value"] for p in listed["pricings"]["prompt"]] == [2.0, 4.0]
                    assert listed["pricings"]["prompt"][1]["conditions"]["prompt_tokens"]["gte"] == 128
                else:
                    assert "of 2026-07-02" in summary
                    with pytest.raises(openai.BadRequestError, match="is not valid"):
                        client.chat.completions.create(model=NEW, messages=[{"role": "user", "content": "hi"}])
            with urllib.request.urlopen(f"http://127.0.0.1:{served.port}/", timeout=30) as response:
                index = json.loads(response.read())["catalogue"]
            assert (index["file"] == str(out)) is admitted
            assert (index["hint"] is None) is admitted  # fresh; the packaged snapshot is months old
            assert served.stop() == 0
        finally:
            served.close()
        logged = (tmp_path / "stderr.log").read_text(encoding="utf-8")
        assert ("days old" in logged and "catalogue pull" in logged) is not admitted


def test_diff_names_the_added_removed_and_repriced_models(gateways: Callable[..., Gateway], tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert pull(gateways(lambda listing: listing, vertex=None), old).returncode == 0
    assert pull(gateways(), new).returncode == 0
    done = run([str(CONSOLE_SCRIPT), "catalogue", "diff", str(old), str(new)])
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"added {NEW}" in lines and f"removed {GONE}" in lines
    assert [line for line in lines if line.startswith("repriced")] == [
        f"repriced {REPRICED}: prompt 1, completion 5 USD/M -> prompt 1.5, completion 5 USD/M"
    ]
    same = run([str(CONSOLE_SCRIPT), "catalogue", "diff", "packaged", str(old)])  # the listing read back whole
    assert same.returncode == 0, same.stdout
    assert "0 added, 0 removed, 0 repriced" in same.stdout


def test_a_bad_catalogue_file_stops_serve_naming_the_model_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"snapshot": "2026-11-01", "models": {"acme/x": {"context_length": "big"}}}))
    done = run([str(CONSOLE_SCRIPT), "serve", "--port", "0", "--catalogue", str(bad)])
    assert done.returncode == 1
    assert "models.acme/x.context_length" in done.stderr
    assert f"not started: the catalogue file {bad} has problems" in done.stderr
    missing = run([str(CONSOLE_SCRIPT), "catalogue", "diff", "packaged", str(tmp_path / "nope.json")])
    assert missing.returncode == 2 and "nope.json" in missing.stderr
