"""The openai SDK's `videos` resource against the video jobs face: `create` sends its multipart form
(`prompt`, `model`, `seconds`, `size`, an `input_reference` file) and reads OpenAI's `Video`, whose
statuses `retrieve` follows on the emulator's clock to `completed`; `download_content` gets the MP4."""

from __future__ import annotations

import io
from collections.abc import Iterator

import openai
import pytest

from tests.conftest import served_yaml
from tests.faces.videos.helpers import MODEL, SCENARIO, advance, opened
from tests.support.clients import sdk
from zenmux_emulator.pytest_plugin.server import EmulatorServer

# openai marks its videos resource deprecated (OpenAI's Sora API closes); clients still call it
pytestmark = pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("openai-videos"), SCENARIO) as started:
        yield started


@pytest.fixture
def client(server: EmulatorServer, session: str) -> Iterator[openai.OpenAI]:
    with sdk(server, session) as made:
        yield made


def test_create_retrieve_and_download_follow_the_clock(client: openai.OpenAI, server: EmulatorServer) -> None:
    video = client.videos.create(model=MODEL, prompt="a fox in the snow", seconds="4", size="1280x720")  # type: ignore[arg-type]
    assert (video.status, video.progress, video.seconds, video.size) == ("queued", 0, "4", "1280x720")
    assert client.videos.retrieve(video.id).status == "queued"
    advance(server, 5)
    running = client.videos.retrieve(video.id)
    assert (running.status, running.progress) == ("in_progress", 50)
    advance(server, 5)
    done = client.videos.retrieve(video.id)
    assert done.status == "completed" and done.progress == 100 and done.completed_at == video.created_at + 10
    film = opened(client.videos.download_content(video.id).content)
    assert (film.width, film.height, film.seconds) == (1280, 720, 4.0)


def test_an_input_reference_file_changes_the_video(client: openai.OpenAI, server: EmulatorServer) -> None:
    plain = client.videos.create(model=MODEL, prompt="a kite", seconds="4", size="720x1280")  # type: ignore[arg-type]
    referenced = client.videos.create(
        model=MODEL,  # type: ignore[arg-type]
        prompt="a kite",
        seconds="4",
        size="720x1280",
        input_reference=("first.png", io.BytesIO(b"\x89PNG a first frame"), "image/png"),
    )
    advance(server, 10)
    made = [client.videos.download_content(v.id).content for v in (plain, referenced)]
    assert made[0] != made[1]
    assert (opened(made[1]).width, opened(made[1]).height) == (720, 1280)


def test_a_refused_job_fails_in_openai_s_shape(client: openai.OpenAI, server: EmulatorServer) -> None:
    video = client.videos.create(model=MODEL, prompt="something forbidden")  # type: ignore[arg-type]
    advance(server, 10)
    failed = client.videos.retrieve(video.id)
    assert failed.status == "failed" and failed.error is not None
    assert (failed.error.code, failed.error.message) == (
        "generation_failed",
        "The prompt was flagged by the content filter",
    )
    with pytest.raises(openai.NotFoundError):
        client.videos.download_content(video.id)


def test_a_bad_size_is_a_400_naming_it(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        client.videos.create(model=MODEL, prompt="a kite", size="huge")  # type: ignore[arg-type]
    assert "size" in str(refused.value.message)
    with pytest.raises(openai.BadRequestError) as refused:
        client.videos.create(model=MODEL, prompt="a kite", seconds="12")  # type: ignore[arg-type]
    assert "seconds" in str(refused.value.message)
