"""A fifth face made outside the package and registered through the public registration only
(`FaceSpec`, `create_app(faces=...)` / `EmulatorServer(faces=...)`): it gets matching, reply
sequences, scripted errors and faults, the journal and the client verdict, near misses, record and
replay, and its base URL from the pytest plugin, with no edit inside `zenmux_emulator/`.

What a new face needs outside its own folder: nothing here (this file is the face and its tests,
its own reply key `mood` included: `ToyReply`, its `FaceSpec.reply`);
a face shipped inside the package adds one line to `faces/shipped.py` (and its folder to the faces'
independence contract in `.importlinter`). Its readers (`Shapes`) give it the verdict's tool-call
check, its decoder (`ReplyDecoder`, as `TOY_DECODED` registers) plain recorded replies; without one
its exchanges are recorded as raw bytes and replayed byte for byte.

The toy API: `POST /toy/v1/say` with `{"model": ..., "say": ..., "answered": [call ids]}`; the
reply is `{"id", "model", "heard", "calls": [{"id", "name"}]}`; errors are `{"toy_error": ...}`.
"""

from __future__ import annotations

import urllib.error
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from http.client import HTTPException
from pathlib import Path
from typing import Any, Literal

import orjson
import pytest
import yaml
from aiohttp import web
from pydantic import Field

from tests.conftest import FROZEN
from tests.control.helpers import control, error_of, ok
from tests.support.bodies import DEFAULT_MODEL
from tests.support.clients import Raw, http
from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.endpoint import Core, Endpoint
from zenmux_emulator.core.exchange import Exchange
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes
from zenmux_emulator.core.neutral.recorded import Collected, Event, ReplyDecoder
from zenmux_emulator.core.neutral.request import cached
from zenmux_emulator.core.spec import FaceSpec
from zenmux_emulator.faces.common.inputs import InputsRequest
from zenmux_emulator.foundation.errors import invalid_params
from zenmux_emulator.pytest_plugin.handle import ZenmuxHandle
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.command import record_settings
from zenmux_emulator.record.store import FILENAME
from zenmux_emulator.scenario.faces import FaceTraits
from zenmux_emulator.scenario.schema import ReplyKeys
from zenmux_emulator.server.app import FACES
from zenmux_emulator.settings import Settings
from zenmux_emulator.state.sessions import session_name
from zenmux_emulator.write.plan import ReplyPlan

# --- the toy face, as a third party would write it -------------------------------------------------


class ToyRequest(InputsRequest):
    face = "toy"

    def __init__(self, body: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        super().__init__(body, headers, model=body["model"])
        self.said: str = body["say"]

    @cached
    def last_user(self) -> str:
        return self.said

    @cached
    def texts(self) -> tuple[str, ...]:
        return (self.said,)

    @cached
    def prompt_tokens(self) -> int:
        return len(self.said.split())

    @cached
    def seed_material(self) -> bytes:
        return self.said.encode()


class ToyReply(ReplyKeys):
    """The reply key the toy face's rules may use beyond every face's."""

    mood: Literal["cheerful", "grumpy"] | None = Field(None, description="the mood the toy answer says it is in")


class ToyFace:
    name = "toy"

    def parse(self, body: object, ctx: FaceContext) -> ToyRequest:
        if not isinstance(body, dict):
            raise invalid_params("expected an object")
        for field in ("model", "say"):
            if not isinstance(body.get(field), str):
                raise invalid_params(f"{field}: expected a string")
        return ToyRequest(body, ctx.headers)

    def render(self, draft: Draft, exchange: Exchange[ToyRequest]) -> ReplyPlan:
        ctx = exchange.ctx
        calls = [{"id": call["id"], "name": call["function"]["name"]} for call in draft.tool_calls]
        voice = ctx.params.get("voice", "plain")
        if voice == "whisper":
            ctx.warnings.append("toy: whispering is heard as plain speech")
        body = {"id": exchange.generation, "model": draft.model, "heard": draft.content, "calls": calls, "voice": voice}
        body["session"], body["rule"] = ctx.session, ctx.rule
        if isinstance(draft.spec, ToyReply) and draft.spec.mood is not None:
            body["mood"] = draft.spec.mood  # its own reply key, scripted by its rules
        return ReplyPlan({**draft.headers, **exchange.headers}, orjson.dumps(body))

    def error_body(self, status: int, type: str, message: str) -> bytes:
        return orjson.dumps({"toy_error": {"status": status, "type": type, "message": message}})


def toy_calls(entry: JournalEntry) -> list[Call | None]:
    reply = orjson.loads(entry.response) if isinstance(entry.response, bytes) else None
    return [(call["id"], call["name"]) for call in (reply or {}).get("calls", [])]


def toy_answers(body: dict[str, Any]) -> Iterator[Any]:
    yield from body.get("answered", [])


def toy_routes(core: Core) -> list[web.RouteDef]:
    endpoint = Endpoint(ToyFace(), core)
    return [web.post("/toy/v1/say", endpoint.handle), web.post("/toy/v1/say/{voice}", endpoint.handle)]


class ToyClient:
    """The toy API's own SDK, as the pytest plugin makes it (`FaceSpec.client`)."""

    def __init__(self, *, base_url: str, api_key: str, model: str = DEFAULT_MODEL) -> None:
        self.base_url, self.api_key, self.model = base_url, api_key, model
        self.closed = False

    def say(self, text: str) -> dict[str, Any]:
        body = orjson.dumps({"model": self.model, "say": text})
        headers = {"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"}
        answer: dict[str, Any] = http(f"{self.base_url}/say", body, method="POST", headers=headers).json()
        return answer

    def close(self) -> None:
        self.closed = True


TOY = FaceSpec(
    name="toy",
    api_name="toy.say",
    base_path="/toy/v1",
    routes=toy_routes,
    readers=Shapes(toy_calls, toy_answers),
    client=ToyClient,
    traits=FaceTraits(zenmux=False),
    reply=ToyReply,
)
WITH_TOY = (*FACES, TOY)


def toy_answer(parsed: object) -> Collected | None:
    """The recorder's reading of a toy answer: what was heard, and the calls made."""
    if not isinstance(parsed, dict) or not isinstance(parsed.get("calls"), list):
        return None
    collected = Collected(model=parsed.get("model"))
    collected.content = parsed.get("heard")
    for call in parsed.get("calls") or ():
        collected.add_call(call["id"], call["name"], "{}")
    collected.finish_reason = "tool_calls" if collected.tool_calls else "stop"
    return collected


def toy_stream(events: Sequence[Event]) -> Collected:
    return Collected()  # the toy API never streams


TOY_DECODED = replace(TOY, decoder=ReplyDecoder(toy_answer, toy_stream, lambda event: True))
"""The toy face with its own recorder decoder: its exchanges are recorded as plain replies."""

# --- the tests --------------------------------------------------------------------------------------

SCENARIO = """\
rules:
  - name: greeting
    match: {api: toy, last_user: {contains: hello}}
    reply: {content: "hi there"}
  - name: counting
    match: {api: toy, last_user: {contains: count}}
    replies: [{content: "one"}, {content: "two"}]
  - name: slow-down
    match: {api: toy, last_user: {contains: too fast}}
    reply: {error: {status: 429, message: "Slow down", headers: {Retry-After: "7"}}}
  - name: hang-up
    match: {api: toy, last_user: {contains: hang up}}
    reply: {fault: {kind: close}}
  - name: weather-call
    match: {api: toy, last_user: {contains: weather}}
    reply: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - name: chat-only
    match: {api: chat, last_user: {contains: hello}}
    reply: {content: "a chat reply"}
  - name: polite
    match: {api: toy, last_user: {contains: polite}}
    expect: {last_user: {contains: please}}
    reply: {content: "thank you"}
  - name: refused
    match: {api: toy, last_user: {contains: refuse}}
    reply: {error: {status: 400, message: "Not like that"}}
"""
KEY = "sk-toy-key"
MODEL = DEFAULT_MODEL


def toy_server(folder: Path, text: str = SCENARIO, **options: Any) -> EmulatorServer:
    (folder / "toy.yaml").write_text(text, encoding="utf-8")
    settings = Settings(port=0, scenarios=[str(folder)], clock=FROZEN, watch=False, **options)
    return EmulatorServer(settings, faces=WITH_TOY)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmulatorServer]:
    with toy_server(tmp_path) as started:
        yield started


def post(url: str, body: object, key: str = KEY) -> Raw:
    return http(
        url,
        orjson.dumps(body),
        method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )


def say(base: str, text: str, key: str = KEY, path: str = "", **more: Any) -> Raw:
    return post(f"{base}/say{path}", {"model": MODEL, "say": text, **more}, key)


def test_the_plugin_gives_the_toy_face_its_base_url(server: EmulatorServer) -> None:
    handle = ZenmuxHandle(server=server, nodeid="toy::base")
    assert handle.url("toy") == f"{server.origin}/toy/v1"
    assert handle.url("chat") == handle.base_url


def test_a_rule_naming_the_toy_face_answers_it_and_only_it(server: EmulatorServer) -> None:
    reply = say(server.url("toy"), "hello emulator")
    assert reply.status == 200
    assert reply.json()["heard"] == "hi there"
    assert reply.headers["x-emulator-rule"] == "greeting"
    generation = http(
        f"{server.base_url}/management/generation?id={reply.json()['id']}", headers={"Authorization": f"Bearer {KEY}"}
    )
    assert generation.json()["api"] == "toy.say"
    chat = post(
        f"{server.base_url}/chat/completions", {"model": MODEL, "messages": [{"role": "user", "content": "hello"}]}
    )
    assert chat.json()["choices"][0]["message"]["content"] == "a chat reply"


def test_the_face_reads_its_url_parameters_session_and_rule_and_warns_into_the_journal(
    server: EmulatorServer,
) -> None:
    reply = say(server.url("toy"), "hello", path="/whisper")
    assert reply.json() | {"id": ""} == {
        "id": "",
        "model": MODEL,
        "heard": "hi there",
        "calls": [],
        "voice": "whisper",
        "session": session_name({}, KEY),
        "rule": "greeting",
    }
    [entry] = server.state.journal.entries()
    assert entry.warnings == ["toy: whispering is heard as plain speech"]


def test_a_sequence_advances_per_session(server: EmulatorServer) -> None:
    base = server.url("toy")
    assert [say(base, "count please").json()["heard"] for _ in range(3)] == ["one", "two", "two"]
    assert say(base, "count please", key="sk-another").json()["heard"] == "one"


def test_errors_are_in_the_toy_envelope(server: EmulatorServer) -> None:
    limited = say(server.url("toy"), "too fast")
    assert limited.status == 429
    assert limited.headers["retry-after"] == "7"
    assert limited.json()["toy_error"]["message"] == "Slow down"
    bad = post(f"{server.url('toy')}/say", {"model": MODEL})
    assert bad.status == 400
    assert bad.json() == {"toy_error": {"status": 400, "type": "invalid_params", "message": "say: expected a string"}}


def test_a_scripted_fault_drops_the_connection(server: EmulatorServer) -> None:
    with pytest.raises((ConnectionError, HTTPException, urllib.error.URLError)):
        say(server.url("toy"), "please hang up")
    [entry] = server.state.journal.entries()
    assert (entry.api, entry.fault) == ("toy", "close")


def test_the_journal_and_the_verdict_read_the_toy_face(server: EmulatorServer) -> None:
    handle = ZenmuxHandle(server=server, nodeid="toy::verdict")
    base = handle.url("toy")
    call = say(base, "what is the weather", key=handle.api_key).json()["calls"][0]
    assert call["name"] == "get_weather"
    say(base, "hello again", key=handle.api_key, answered=[])
    entries = handle.requests
    assert [(e.api, e.rule) for e in entries] == [("toy", "weather-call"), ("toy", "greeting")]
    findings = handle.verdict()
    assert [(f.check, f.seq) for f in findings] == [("tool_calls", entries[0].seq)]
    say(base, "hello, the call is answered", key=handle.api_key, answered=[call["id"]])
    assert handle.verdict() == []


def test_an_unmatched_request_has_near_misses(server: EmulatorServer) -> None:
    reply = say(server.url("toy"), "goodbye")
    assert reply.status == 200
    [entry] = server.state.journal.entries()
    assert entry.rule is None
    missed = {miss["rule"] for miss in entry.near_misses}
    assert "greeting" in missed


def test_a_strict_server_refuses_an_unmatched_toy_request_in_its_envelope(tmp_path: Path) -> None:
    with toy_server(tmp_path, strict=True) as strict:
        reply = say(strict.url("toy"), "goodbye")
    assert reply.status == 404
    assert "toy_error" in reply.json()


def test_record_and_replay(tmp_path: Path) -> None:
    upstream_dir, out = tmp_path / "upstream", tmp_path / "out"
    upstream_dir.mkdir()
    with toy_server(upstream_dir) as upstream:
        given = record_settings({"out": str(out), "upstream": upstream.origin, "port": 0})
        with EmulatorServer(Settings(**given), faces=WITH_TOY) as recorder:
            live = say(recorder.url("toy"), "hello recorder")
    assert live.json()["heard"] == "hi there"
    document = yaml.safe_load((out / FILENAME).read_text(encoding="utf-8"))
    [rule] = document["rules"]
    assert rule["match"]["api"] == "toy"
    with EmulatorServer(Settings(port=0, scenarios=[str(out)], clock=FROZEN, watch=False), faces=WITH_TOY) as replay:
        again = say(replay.url("toy"), "hello recorder")
    assert again.status == 200
    assert again.text == live.text


def test_the_verdict_reads_every_check_on_the_toy_face(server: EmulatorServer) -> None:
    handle = ZenmuxHandle(server=server, nodeid="toy::checks")
    base = handle.url("toy")
    say(base, "what is the weather", key=handle.api_key)  # a call never answered
    assert say(base, "refuse this", key=handle.api_key).status == 400
    assert say(base, "refuse this", key=handle.api_key).status == 400  # the same request after a 400
    assert say(base, "too fast", key=handle.api_key).status == 429
    assert say(base, "be polite", key=handle.api_key).json()["heard"] == "thank you"  # within Retry-After, no "please"
    seqs = [entry.seq for entry in handle.requests]
    findings = [(finding.check, finding.seq) for finding in handle.verdict()]
    assert findings == [
        ("tool_calls", seqs[0]),
        ("non_retryable", seqs[2]),
        ("retry_after", seqs[4]),
        ("expectations", seqs[4]),
    ]
    with pytest.raises(AssertionError, match="get_weather"):
        handle.assert_client_well_behaved()


def test_record_and_replay_with_the_faces_own_decoder(tmp_path: Path) -> None:
    upstream_dir, out = tmp_path / "upstream", tmp_path / "out"
    upstream_dir.mkdir()
    asked = ["hello recorder", "what is the weather", "too fast"]
    with toy_server(upstream_dir) as upstream:
        given = record_settings({"out": str(out), "upstream": upstream.origin, "port": 0, "record_errors": True})
        with EmulatorServer(Settings(**given), faces=(*FACES, TOY_DECODED)) as recorder:
            live = [say(recorder.url("toy"), text) for text in asked]
    rules = {
        rule["match"]["last_user"]["equals"]: rule for rule in yaml.safe_load((out / FILENAME).read_text())["rules"]
    }
    assert rules["hello recorder"]["reply"] == {"verbatim": True, "content": "hi there", "finish_reason": "stop"}
    call = live[1].json()["calls"][0]
    assert rules["what is the weather"]["reply"]["tool_calls"] == [
        {"id": call["id"], "name": "get_weather", "arguments": {}}
    ]
    error = rules["too fast"]["reply"]["raw"]  # not ZenMux's envelope: kept as the bytes it was
    assert (error["status"], error["headers"], error["body"]) == (429, {"Retry-After": "7"}, live[2].text)
    settings = Settings(port=0, scenarios=[str(out)], clock=FROZEN, watch=False, strict=True)
    with EmulatorServer(settings, faces=(*FACES, TOY_DECODED)) as replay:
        again = [say(replay.url("toy"), text) for text in asked]
    for before, after, text in zip(live, again, asked, strict=True):
        assert (after.status, after.headers.get("retry-after")) == (before.status, before.headers.get("retry-after"))
        if before.status == 200:
            kept = ("model", "heard", "calls", "voice", "session")
            assert {k: after.json()[k] for k in kept} == {k: before.json()[k] for k in kept}
            assert after.json()["rule"] == rules[text]["name"]  # answered by the recorded rule
        else:
            assert after.json() == before.json()


def test_the_index_lists_the_toy_face_and_its_routes(server: EmulatorServer) -> None:
    index = http(f"{server.origin}/", headers={"Accept": "application/json"}).json()
    [toy] = [face for face in index["faces"] if face["name"] == "toy"]
    assert toy["base_url"] == server.url("toy")
    assert "POST /toy/v1/say" in toy["routes"] and "POST /toy/v1/say/{voice}" in toy["routes"]


def test_the_plugin_makes_the_toy_faces_own_client(server: EmulatorServer) -> None:
    handle = ZenmuxHandle(server=server, nodeid="toy::client")
    toy = handle.client("toy")
    assert isinstance(toy, ToyClient) and toy.base_url == server.url("toy") and toy.api_key == handle.api_key
    assert toy.say("hello from the client")["heard"] == "hi there"
    assert [entry.rule for entry in handle.requests] == ["greeting"]
    handle.close_clients()
    assert toy.closed
    with pytest.raises(LookupError, match="rerank"):
        handle.client("rerank")


MOODS = """\
rules:
  - name: moody
    match: {api: toy, last_user: {contains: how are you}}
    reply: {content: "fine", mood: grumpy}
"""


def test_the_toy_faces_own_reply_key_is_scripted_by_a_rule(server: EmulatorServer) -> None:
    ok(control(server, "POST", "scenarios?name=moods", text=MOODS), 201)
    reply = say(server.url("toy"), "how are you")
    assert (reply.json()["heard"], reply.json()["mood"], reply.json()["rule"]) == ("fine", "grumpy", "moody")
    assert "mood" not in say(server.url("toy"), "hello").json()  # a rule that does not script it


def test_a_bad_value_of_the_toy_faces_reply_key_is_refused_at_load_with_its_line(server: EmulatorServer) -> None:
    sulky = MOODS.replace("mood: grumpy", "mood: sulky")
    error = error_of(control(server, "POST", "scenarios?name=moods", text=sulky), 400, "invalid_scenario")
    assert error["problems"] == [
        {
            "file": "api:moods",
            "line": 4,
            "column": 36,
            "path": "rules[0].reply.mood",
            "reason": "expected one of 'cheerful', 'grumpy', got 'sulky'",
        }
    ]


def test_without_the_toy_face_its_reply_key_is_an_unknown_key(tmp_path: Path) -> None:
    settings = Settings(port=0, scenarios=[str(tmp_path)], clock=FROZEN, watch=False)
    (tmp_path / "empty.yaml").write_text("rules: []\n", encoding="utf-8")
    with EmulatorServer(settings, faces=FACES) as shipped_only:
        moods = MOODS.replace("api: toy, ", "")  # the rule as a chat rule: only its reply key is unknown there
        error = error_of(control(shipped_only, "POST", "scenarios?name=moods", text=moods), 400, "invalid_scenario")
    assert [(p["line"], p["column"], p["path"], p["reason"]) for p in error["problems"]] == [
        (4, 30, "rules[0].reply.mood", "unknown key 'mood'; did you mean 'model'?")
    ]
