"""Bad `:predict` bodies, and bad image settings of a Gemini request, get a 4xx in ZenMux's envelope,
never a 5xx or a traceback: valid bodies with one field replaced by any JSON value."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.clients import API_KEY
from tests.support.strategies import JSON_VALUES
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

PREDICT = "/v1/publishers/google/models/imagen-4.0-fast-generate-001:predict"
GENERATE = "/v1/publishers/google/models/gemini-2.5-flash-image:generateContent"


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(Settings(port=0, scenarios=[])) as started:
        yield started


def judged(server: EmulatorServer, path: str, body: dict[str, Any]) -> None:
    request = urllib.request.Request(
        server.url("vertex") + path,
        data=json.dumps(body).encode(),
        headers={"x-goog-api-key": API_KEY, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, sent = answer.status, answer.read()
    except urllib.error.HTTPError as failed:
        with failed:
            status, sent = failed.code, failed.read()
    assert status < 500, sent
    if status >= 400:
        error = json.loads(sent)["error"]
        assert isinstance(error["message"], str) and error["message"] and "Traceback" not in error["message"]


PARAMETERS = ["sampleCount", "aspectRatio", "sampleImageSize", "outputOptions", "seed", "enhancePrompt",
              "negativePrompt", "includeRaiReason"]  # fmt: skip


@settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_a_predict_field_replaced_by_any_json_is_never_a_5xx(server: EmulatorServer, data: st.DataObject) -> None:
    body: dict[str, Any] = {"instances": [{"prompt": "a kite"}], "parameters": {"sampleCount": 1}}
    where = data.draw(st.sampled_from(["instances", "instance", "prompt", "parameters", "outputOptions", *PARAMETERS]))
    value = data.draw(JSON_VALUES)
    if where == "instances" or where == "parameters":
        body[where] = value
    elif where == "instance":
        body["instances"] = [value]
    elif where == "prompt":
        body["instances"][0]["prompt"] = value
    elif where == "outputOptions":
        body["parameters"]["outputOptions"] = {data.draw(st.sampled_from(["mimeType", "compressionQuality"])): value}
    else:
        body["parameters"][where] = value
    judged(server, PREDICT, body)


@settings(max_examples=80, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["responseModalities", "imageConfig", "aspectRatio", "imageSize"]), JSON_VALUES)
def test_a_gemini_image_setting_replaced_by_any_json_is_never_a_5xx(
    server: EmulatorServer, where: str, value: Any
) -> None:
    config: dict[str, Any] = {"responseModalities": ["TEXT", "IMAGE"], "imageConfig": {"aspectRatio": "1:1"}}
    if where in config:
        config[where] = value
    else:
        config["imageConfig"][where] = value
    judged(
        server, GENERATE, {"contents": [{"role": "user", "parts": [{"text": "a kite"}]}], "generationConfig": config}
    )
