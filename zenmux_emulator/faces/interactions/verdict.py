"""How the client verdict reads the Interactions API: the reply's `function_call` steps (in the
JSON interaction, or the `step.start` of a streamed call whose `step.stop` the client got) answered
by `function_result` steps in a later `input` with the same `call_id`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Call, Shapes, event_data, json_or_none


def _call(step: Any) -> Call | None:
    if not isinstance(step, dict) or step.get("type") != "function_call" or not isinstance(step.get("id"), str):
        return None
    return step["id"], str(step.get("name", ""))


def calls(entry: JournalEntry) -> list[Call | None]:
    if isinstance(entry.response, bytes):
        body = json_or_none(entry.response)
        return [_call(step) for step in (body.get("steps") or () if isinstance(body, dict) else ())]
    started: dict[Any, Call | None] = {}
    done: list[Call | None] = []
    for data in event_data(entry):
        if data.get("event_type") == "step.start":
            started[data.get("index")] = _call(data.get("step"))
        elif data.get("event_type") == "step.stop":
            done.append(started.pop(data.get("index"), None))
    return done


def answers(body: dict[str, Any]) -> Iterator[Any]:
    steps = body.get("input")
    for step in steps if isinstance(steps, list) else ():
        if isinstance(step, dict) and step.get("type") == "function_result":
            yield step.get("call_id")


READERS = Shapes(calls, answers)
"""The Interactions face's tool calls and their answers, for the client verdict."""
