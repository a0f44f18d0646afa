"""scenarios/limits.yaml: the demo keys are limited, every other key is not."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import openai
import pytest

from tests.conftest import FROZEN, SHIPPED
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

LIMITS = SHIPPED / "limits.yaml"
ASK = {"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello"}]}


@pytest.fixture
def limits() -> Iterator[EmulatorServer]:
    with EmulatorServer(Settings(port=0, scenarios=[str(LIMITS)], clock=FROZEN, watch=False)) as server:
        yield server


def client(server: EmulatorServer, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0)


def advance(server: EmulatorServer, seconds: float) -> None:
    request = urllib.request.Request(
        f"{server.origin}/_emulator/clock",
        method="POST",
        data=json.dumps({"advance": seconds}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_the_third_request_in_a_minute_gets_429_with_the_real_wait(limits: EmulatorServer) -> None:
    with client(limits, "sk-demo-limited") as limited:
        for _ in range(2):
            limited.chat.completions.create(**ASK)
        with pytest.raises(openai.RateLimitError) as caught:
            limited.chat.completions.create(**ASK)
        assert caught.value.body["type"] == "rate_limit"
        assert caught.value.response.headers["Retry-After"] == "30"  # one request refills every 30 s
        advance(limits, 30)
        assert limited.chat.completions.create(**ASK).choices[0].message.content


def test_other_keys_are_not_limited(limits: EmulatorServer) -> None:
    with client(limits, "sk-anyone") as anyone:
        for _ in range(5):
            assert anyone.chat.completions.create(**ASK).choices[0].finish_reason == "stop"


def test_a_spent_balance_answers_402_insufficient_credit(limits: EmulatorServer) -> None:
    with client(limits, "sk-demo-broke") as broke:
        answered = 0
        with pytest.raises(openai.APIStatusError) as caught:
            for _ in range(1000):
                broke.chat.completions.create(**ASK)
                answered += 1
        assert answered >= 1
        assert caught.value.status_code == 402
        assert caught.value.body["type"] == "insufficient_credit"
