"""The scenario language of a set of faces (`scenario/language.py`): the schema's Reply with each
registered face's reply keys, compiled once per set of faces, and the registrations refused."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import BaseModel, Field

from zenmux_emulator.core.spec import face_names
from zenmux_emulator.faces.embeddings.reply import VectorsReply
from zenmux_emulator.faces.shipped import FACES, NAMES
from zenmux_emulator.scenario.faces import context
from zenmux_emulator.scenario.language import compiled, language
from zenmux_emulator.scenario.schema import Reply, ReplyKeys, Rule, ScenarioFile


class Tone(ReplyKeys):
    tone: str | None = Field(None, description="how it sounds")


class Content(ReplyKeys):
    content: str | None = None


class Loose(BaseModel):
    tone: str | None = None


def test_the_shipped_faces_add_their_keys_described_with_their_face() -> None:
    spoken = language(NAMES)
    assert spoken.owners == {
        "query": "objectiveai",
        "vectors": "embeddings",
        "scores": "rerank",
        "image": "images",
        "speech": "speech",
        "transcript": "transcription",
        "video": "videos",
        "answers": "systemone",
    }
    fields = spoken.reply.model_fields
    assert [fields[key].description.split(":")[0] for key in spoken.owners] == list(spoken.owners.values())
    published = spoken.file.model_json_schema(by_alias=True)["$defs"]["Reply"]["properties"]
    assert {key: published[key]["face"] for key in spoken.owners} == spoken.owners
    assert "face" not in published["content"]
    assert set(Reply.model_fields) < set(fields)
    assert not set(spoken.owners) & set(Reply.model_fields)  # the schema names no face's keys


def test_a_reply_is_the_faces_keys_model_too_and_compiled_once() -> None:
    spoken = language(NAMES)
    data = {"rules": [{"name": "v", "reply": {"vectors": {"hi": [1.0, 0.0]}}}]}
    [rule] = spoken.file.model_validate(data, context=context(NAMES)).rules
    assert isinstance(rule, Rule) and isinstance(rule.reply, Reply) and isinstance(rule.reply, VectorsReply)
    assert rule.reply.vectors == {"hi": [1.0, 0.0]}
    assert language(face_names(FACES)) is spoken  # another app of the same faces: the same models


def test_without_face_keys_the_language_is_the_schemas_own() -> None:
    spoken = compiled(())
    assert (spoken.reply, spoken.rule, spoken.file) == (Reply, Rule, ScenarioFile)
    assert spoken.owners == {}


def test_a_key_two_faces_register_is_refused_at_registration() -> None:
    first = replace(FACES[0], name="first", reply=Tone)
    second = replace(FACES[1], name="second", reply=Tone)
    with pytest.raises(ValueError, match="reply key 'tone' is registered by two faces: first and second"):
        face_names((first, second))


def test_a_key_every_reply_has_is_refused_at_registration() -> None:
    with pytest.raises(ValueError, match="face 'chat': reply key 'content' is one every reply has"):
        face_names((replace(FACES[0], reply=Content),))


def test_a_model_that_is_not_reply_keys_is_refused_at_registration() -> None:
    loose = replace(FACES[0], reply=Loose)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="its reply keys model Loose is not a ReplyKeys"):
        face_names((loose,))
