"""Every fault through the official SDKs on every face, with a forced tool: the status and the
framing stay valid, the SDK parses the envelope, and the output is wrong in exactly the named way;
the journal entry names the fault applied."""

from __future__ import annotations

import json

import jsonschema
import pytest

from tests.misbehave.helpers import FACES, SCHEMA, TOOL, Seen, misbehave
from tests.support.polling import wait_for
from zenmux_emulator.core.draft.misbehave import EXTRA_PROPERTY
from zenmux_emulator.foundation.misbehaviours import CATALOGUE
from zenmux_emulator.pytest_plugin.server import EmulatorServer

CASES = [(kind.name, variant) for kind in CATALOGUE.values() for variant in kind.variants or ("",)]
LENGTH = {"chat": "length", "anthropic": "max_tokens", "responses": "incomplete:max_output_tokens"}


def family(face: str) -> str:
    return face.removesuffix("-stream")


def not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def check_tool_fault(fault: str, variant: str, face: str, seen: Seen) -> None:
    assert seen.calls, seen
    ident, name, arguments = seen.calls[0]
    if fault == "tool-args-invalid-json":
        assert not_json(arguments), arguments
        assert {
            "truncated": not arguments.endswith("}"),
            "trailing-comma": arguments.endswith(",}"),
            "single-quotes": "'" in arguments,
        }[variant], arguments
    elif fault == "tool-args-schema-violation":
        value = json.loads(arguments)
        with pytest.raises(jsonschema.ValidationError) as refused:
            jsonschema.validate(value, SCHEMA)
        reason = refused.value.validator
        assert (
            reason
            == {
                "missing-required": "required",
                "wrong-type": "type",
                "extra-property": "additionalProperties",
                "enum-mismatch": "enum",
                "not-object": "type",
            }[variant]
        ), reason
        if variant == "extra-property":
            assert value[EXTRA_PROPERTY] is True
        if variant == "not-object":
            assert isinstance(value, str)
    elif fault == "tool-unknown-name":
        assert name != TOOL and name.startswith(TOOL), name
    elif fault == "tool-call-id-duplicate":
        assert len(seen.calls) == 2 and seen.calls[1][0] == ident, seen.calls
    elif fault == "stop-length-mid-tool":
        assert seen.finish == LENGTH[family(face)], seen.finish
        if face == "anthropic":  # a message's `input` is an object: what a partial parse of the cut text gives
            assert arguments == "{}"
        else:
            assert not_json(arguments) and arguments.startswith("{"), arguments
        if family(face) == "responses":
            assert seen.item_status == ["incomplete"]
    if fault != "stop-length-mid-tool":
        assert seen.finish in ("tool_calls", "tool_use", "completed"), seen.finish


def check_reply_fault(fault: str, face: str, seen: Seen) -> None:
    assert not seen.calls, seen.calls
    kind = family(face)
    if fault == "empty-response":
        assert not seen.text and seen.refusal is None and not seen.reasoning
        assert seen.finish == {"chat": "stop", "anthropic": "end_turn", "responses": "completed"}[kind]
    elif fault == "refusal":
        assert seen.refusal and not seen.text, seen
        assert seen.finish == {"chat": "stop", "anthropic": "refusal", "responses": "completed"}[kind]
    elif fault == "content-filter":
        assert not seen.text and not seen.refusal and not seen.reasoning, seen
        assert (
            seen.finish
            == {"chat": "content_filter", "anthropic": "refusal", "responses": "incomplete:content_filter"}[kind]
        )
    elif fault == "reasoning-only":
        assert seen.reasoning and not seen.text and not seen.refusal, seen
        assert seen.finish == LENGTH[kind]


@pytest.mark.parametrize("face", list(FACES))
@pytest.mark.parametrize(("fault", "variant"), CASES)
def test_fault_on_every_face(server: EmulatorServer, face: str, fault: str, variant: str) -> None:
    session = f"sdk-{face}-{fault}-{variant}"
    seen = FACES[face](server, session, misbehave(fault, variant))
    if CATALOGUE[fault].tool:
        check_tool_fault(fault, variant, face, seen)
    else:
        check_reply_fault(fault, face, seen)
    entry = wait_for(
        lambda: next((e for e in server.state.journal.entries(session=session) if e.finished is not None), None)
    )
    assert entry.status == 200
    assert entry.misbehaved is not None
    assert entry.misbehaved.as_dict() == {"fault": fault, "variant": variant, "source": "header"}
    assert entry.response_headers["X-Emulator-Misbehaved"] == (f"{fault};{variant}" if variant else fault)
