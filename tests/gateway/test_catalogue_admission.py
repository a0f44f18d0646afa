"""Catalogue admission on every ZenMux face: an id ZenMux does not list is refused with its
documented answer, through each face's official SDK; `catalogue: open` lets it answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import openai

from tests.conftest import SHIPPED, MakeServer
from tests.faces.anthropic.helpers import sdk as anthropic_sdk
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

TYPO = "anthropic/claude-sonet-4.5"
DOCUMENTED = {"code": "400", "type": "invalid_params", "message": f"Model {TYPO} is not valid"}
HELLO: Any = [{"role": "user", "content": "hello"}]


def ask_every_face(server: EmulatorServer, session: str, model: str) -> list[object]:
    """The reply's model on chat, Responses and Anthropic, or the error each SDK raised."""
    answers: list[object] = []
    with sdk(server, session) as client:
        for call in (
            lambda: client.chat.completions.create(model=model, messages=HELLO).model,
            lambda: client.responses.create(model=model, input="hello").model,
        ):
            try:
                answers.append(call())
            except openai.BadRequestError as exc:
                answers.append(exc)
    with anthropic_sdk(server, session) as claude:
        try:
            answers.append(claude.messages.create(model=model, max_tokens=32, messages=HELLO).model)
        except anthropic.BadRequestError as exc:
            answers.append(exc)
    return answers


def test_a_mistyped_model_is_refused_on_every_face(make_server: MakeServer, session: str) -> None:
    server = make_server((SHIPPED / "basics.yaml").read_text(encoding="utf-8"))
    answers = ask_every_face(server, session, TYPO)
    assert [type(a) for a in answers] == [openai.BadRequestError, openai.BadRequestError, anthropic.BadRequestError]
    for answer in answers:
        assert isinstance(answer, openai.APIStatusError | anthropic.APIStatusError)
        assert answer.status_code == 400 and answer.response.json() == {"error": DOCUMENTED}
        hint = answer.response.headers["x-emulator-warnings"]  # the emulator's own word; ZenMux's message stays
        assert hint.startswith(f"model {TYPO} is not in the emulator's catalogue (ZenMux's models as of 2026-07-02")
        assert "declare it under models: in a scenario file" in hint and "tools/build_catalogue.py" in hint
    assert ask_every_face(server, session, "anthropic/claude-sonnet-4.5") == ["anthropic/claude-sonnet-4.5"] * 3


def test_an_open_catalogue_lets_any_model_answer(make_server: MakeServer, session: str) -> None:
    server = make_server("settings: {catalogue: open}\nrules: []\n")
    assert ask_every_face(server, session, TYPO) == [TYPO] * 3


def test_the_hint_names_the_catalogue_served_not_the_packaged_one(
    make_server: MakeServer, session: str, tmp_path: Path
) -> None:
    """Issue 40: under `--catalogue FILE` the hint still gave the packaged snapshot's day."""
    pulled = tmp_path / "pulled.json"
    document = {"source": "a pull", "snapshot": "2026-11-20", "models": {"acme/only-model": {}}}
    pulled.write_text(json.dumps(document), encoding="utf-8")
    server = make_server("rules: []\n", catalogue=pulled)
    answers = ask_every_face(server, session, TYPO)
    for answer in answers:
        assert isinstance(answer, openai.APIStatusError | anthropic.APIStatusError)
        hint = answer.response.headers["x-emulator-warnings"]
        assert hint.startswith(
            f"model {TYPO} is not in the emulator's catalogue (ZenMux's models as of 2026-11-20, "
            f"from the catalogue file {pulled} and the scenario files' models:)"
        ), hint
        assert "2026-07-02" not in hint
