"""scenarios/models.yaml through the official openai SDK: its model and its rule."""

from __future__ import annotations

import openai
import pytest

from tests.conftest import SHIPPED
from tests.scenarios.helpers import ask
from tests.support.shipped import load_paths

FILE = SHIPPED / "models.yaml"
COVERED = {"tiny-model"}


def test_every_rule_of_models_yaml_is_covered_here():
    loaded = load_paths([FILE])
    assert {rule.name for rule in loaded.rules} == COVERED
    assert set(loaded.models) == {"acme/tiny-test"}


def test_tiny_model_answers_any_message_to_its_model(shipped_client: openai.OpenAI):
    for text in ("x", "hello"):  # greeting wants openai/*, so tiny-model answers "hello" here
        answer = ask(shipped_client, text, model="acme/tiny-test")
        assert answer.rule == "tiny-model", text
        assert answer.content == "tiny reply"
        assert answer.completion.model == "acme/tiny-test"


def test_tiny_model_answers_with_a_pinned_provider_suffix(shipped_client: openai.OpenAI):
    assert ask(shipped_client, "x", model="acme/tiny-test:some-provider").rule == "tiny-model"


def test_tiny_model_does_not_answer_other_models(shipped_client: openai.OpenAI):
    with pytest.raises(openai.BadRequestError, match="Model acme/tiny-test-2 is not valid"):
        ask(shipped_client, "x", model="acme/tiny-test-2")  # neither declared nor in ZenMux's catalogue
    assert ask(shipped_client, "x", model="openai/gpt-5.4-mini").rule is None


def test_tiny_model_is_listed_with_its_display_name(shipped_client: openai.OpenAI):
    listed = {m.id: m for m in shipped_client.models.list().data}
    assert "acme/tiny-test" in listed
    assert "openai/gpt-5" in listed  # the built-in catalogue is still served next to it
    assert listed["acme/tiny-test"].model_dump().get("display_name") == "Acme: Tiny Test"


def test_tiny_model_rejects_a_prompt_longer_than_its_context(shipped_client: openai.OpenAI):
    with pytest.raises(openai.APIStatusError) as caught:
        ask(shipped_client, "word " * 200, model="acme/tiny-test")
    assert caught.value.status_code == 413
