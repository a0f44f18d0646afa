"""`serve --record-missing`: the loaded scenarios answer what they can; only the rest goes to the
upstream and is recorded, so a folder grows across runs without duplicated rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from tests.conftest import MakeServer
from tests.record.helpers import recorded, serving, upstream
from tests.support.clients import API_KEY
from zenmux_emulator.cli.main import main
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.record.store import FILENAME

SONNET = "anthropic/claude-sonnet-4.5"
HAND_WRITTEN = """\
rules:
  - name: hand-written
    match: {last_user: {contains: "hand written"}}
    reply: {content: "from the folder"}
"""


def ask(server: EmulatorServer, text: str) -> str | None:
    with openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client:
        return (
            client.chat.completions.create(model="openai/gpt-5.4-mini", messages=[{"role": "user", "content": text}])
            .choices[0]
            .message.content
        )


def forwarded(server: EmulatorServer) -> int:
    """Chat requests the upstream has answered."""
    return sum(1 for e in server.state.journal.entries() if e.api == "chat")


def test_a_folder_grows_across_two_runs_without_duplicates(make_server: MakeServer, tmp_path: Path) -> None:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    (folder / "hand.yaml").write_text(HAND_WRITTEN, encoding="utf-8")
    source = upstream(make_server)

    with serving(folder, strict=True, record_missing=True, upstream=source.origin) as first:
        assert ask(first, "hand written please") == "from the folder"
        assert forwarded(source) == 0
        assert ask(first, "a plain question") == "You asked: a plain question"
        assert forwarded(source) == 1
        # recorded and reloaded at once: the same request is now answered from the new rule
        assert ask(first, "a plain question") == "You asked: a plain question"
        assert forwarded(source) == 1
        entries = [e.as_dict() for e in first.state.journal.entries()]
    assert [e["recorded"] for e in entries] == [False, True, False]
    assert entries[2]["rule"] == entries[1]["rule"]
    assert len(recorded(folder)["rules"]) == 1

    with serving(folder, strict=True, record_missing=True, upstream=source.origin) as second:
        assert ask(second, "a plain question") == "You asked: a plain question"
        assert ask(second, "count for me") == "one"
        assert ask(second, "count for me") == "one"  # repeat_last of the recorded rule, not the upstream's next
    assert forwarded(source) == 2

    rules = recorded(folder)["rules"]
    assert [r["match"]["last_user"]["equals"] for r in rules] == ["a plain question", "count for me"]
    assert len({r["name"] for r in rules}) == 2
    assert main(["validate", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["hand.yaml", FILENAME]


def test_signed_reasoning_recorded_on_a_miss_is_accepted_on_the_next_turn(
    make_server: MakeServer, tmp_path: Path
) -> None:
    """Turn 1 is forwarded and recorded; turn 2 passes the upstream's signature back, and this
    server (whose own secret could not have made it) accepts it from the recording."""
    folder = tmp_path / "fixtures"
    folder.mkdir()
    source = upstream(make_server)
    tool: Any = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
    reason: Any = {"reasoning": {"enabled": True}}
    question: Any = [{"role": "user", "content": "weather in Paris?"}]
    with (
        serving(folder, record_missing=True, upstream=source.origin) as server,
        openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0) as client,
    ):
        first = client.chat.completions.create(model=SONNET, messages=question, tools=[tool], extra_body=reason)
        message = first.choices[0].message.model_dump(exclude_none=True)
        history = [
            *question,
            message,
            {"role": "tool", "tool_call_id": message["tool_calls"][0]["id"], "content": "sunny"},
        ]
        second = client.chat.completions.create(model=SONNET, messages=history, tools=[tool], extra_body=reason)
        assert second.choices[0].message.content == "Paris is sunny today."
        history[1]["reasoning_details"][0]["signature"] = "Eg" + history[1]["reasoning_details"][0]["signature"][2:-4]
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model=SONNET, messages=history, tools=[tool], extra_body=reason)
        assert refused.value.body == {
            "code": "400",
            "type": "invalid_params",
            "message": "messages.1.content.0: Invalid `signature` in `thinking` block",
        }
    assert forwarded(source) == 2  # the edited turn was refused here, never forwarded
    assert len(recorded(folder)["rules"]) == 2
