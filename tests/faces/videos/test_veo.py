"""Vertex AI's Veo jobs through google-genai as ZenMux's docs set it up (`vertexai=True`, api_version
v1): `models.generate_videos` submits, `operations.get` polls to done once the emulator's clock has
moved, and the video comes back inline as an MP4 PyAV opens; a rule's `video.fails` filters it, bad
parameters are 400s naming them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from google import genai
from google.genai import errors, types

from tests.conftest import served_yaml
from tests.faces.videos.helpers import SCENARIO, VEO, advance, opened, send
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import SESSION_HEADER


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("veo"), SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> genai.Client:
    options = types.HttpOptions(base_url=server.url("vertex"), api_version="v1", headers={SESSION_HEADER: session})
    return genai.Client(api_key="sk-test", vertexai=True, http_options=options)


def test_generate_videos_is_polled_to_done_after_the_clock_moves(client: genai.Client, server: EmulatorServer) -> None:
    config = types.GenerateVideosConfig(duration_seconds=2, aspect_ratio="16:9", resolution="720p")
    operation = client.models.generate_videos(
        model=VEO, source=types.GenerateVideosSource(prompt="a neon hologram of a cat"), config=config
    )
    assert operation.name is not None
    assert operation.name.startswith("publishers/google/models/veo-3.1-generate-001/operations/")
    assert not operation.done
    operation = client.operations.get(operation)
    assert not operation.done
    advance(server, 10)
    operation = client.operations.get(operation)
    assert operation.done
    assert operation.response is not None and operation.response.generated_videos
    video = operation.response.generated_videos[0].video
    assert video is not None and video.mime_type == "video/mp4" and video.video_bytes is not None
    film = opened(video.video_bytes)
    assert (film.width, film.height, film.seconds, film.frames) == (1280, 720, 2.0, 48)


def test_several_videos_differ_and_the_same_prompt_makes_the_same_bytes(
    client: genai.Client, server: EmulatorServer
) -> None:
    config = types.GenerateVideosConfig(duration_seconds=1, aspect_ratio="9:16", number_of_videos=2, seed=3)
    first = client.models.generate_videos(
        model=VEO, source=types.GenerateVideosSource(prompt="a paper boat"), config=config
    )
    again = client.models.generate_videos(
        model=VEO, source=types.GenerateVideosSource(prompt="a paper boat"), config=config
    )
    assert first.name != again.name
    advance(server, 10)
    made = []
    for operation in (first, again):
        done = client.operations.get(operation)
        assert done.response is not None and done.response.generated_videos is not None
        made.append([generated.video.video_bytes for generated in done.response.generated_videos if generated.video])
    assert len(made[0]) == 2 and made[0][0] != made[0][1]
    assert made[0] == made[1]
    assert made[0][0] is not None and (opened(made[0][0]).width, opened(made[0][0]).height) == (720, 1280)


def test_a_rule_s_video_fails_filters_the_video(client: genai.Client, server: EmulatorServer) -> None:
    operation = client.models.generate_videos(
        model=VEO,
        source=types.GenerateVideosSource(prompt="something forbidden"),
        config=types.GenerateVideosConfig(duration_seconds=1),
    )
    advance(server, 10)
    operation = client.operations.get(operation)
    assert operation.done and operation.response is not None
    assert operation.response.rai_media_filtered_count == 1
    assert operation.response.rai_media_filtered_reasons == ["The prompt was flagged by the content filter"]
    assert not operation.response.generated_videos


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (types.GenerateVideosConfig(duration_seconds=30), "parameters.durationSeconds"),
        (types.GenerateVideosConfig(resolution="4k"), "parameters.resolution"),
        (types.GenerateVideosConfig(aspect_ratio="2:1"), "parameters.aspectRatio"),
        (types.GenerateVideosConfig(number_of_videos=9), "parameters.sampleCount"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(
    client: genai.Client, config: types.GenerateVideosConfig, field: str
) -> None:
    with pytest.raises(errors.ClientError) as refused:
        client.models.generate_videos(model=VEO, source=types.GenerateVideosSource(prompt="a kite"), config=config)
    assert refused.value.code == 400
    assert field in str(refused.value.message)


def test_an_unknown_operation_and_a_model_that_makes_no_video(server: EmulatorServer) -> None:
    path = "/api/vertex-ai/v1/publishers/google/models/veo-3.1-generate-001:fetchPredictOperation"
    name = "publishers/google/models/veo-3.1-generate-001/operations/0123"
    unknown = send(server, path, {"operationName": name})
    assert unknown.status == 404 and unknown.json()["error"]["type"] == "not_found"
    missing = send(server, path, {})
    assert missing.status == 400 and "operationName" in missing.json()["error"]["message"]
    text_model = send(
        server,
        "/api/vertex-ai/v1/publishers/google/models/gemini-2.5-pro:predictLongRunning",
        {"instances": [{"prompt": "x"}]},
    )
    assert text_model.status == 400 and "google/gemini-2.5-pro" in text_model.json()["error"]["message"]
    submit = "/api/vertex-ai/v1/publishers/google/models/veo-3.1-generate-001:predictLongRunning"
    for body, field in (
        ({"instances": [{"prompt": 5}]}, "instances[0].prompt"),
        ({"instances": [{"prompt": "x", "image": "a.png"}]}, "instances[0].image"),
        ({"instances": [{"prompt": "x", "referenceImages": {}}]}, "instances[0].referenceImages"),
        ({"instances": [{"prompt": "x"}], "parameters": []}, "parameters"),
    ):
        refused = send(server, submit, body)
        assert refused.status == 400 and field in refused.json()["error"]["message"], refused.text
