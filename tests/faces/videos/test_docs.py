"""The Video section's example of docs/guide/media.md, run as written against a server of its own
(it moves the clock, which the shipped server the other examples share must keep)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import served_yaml
from tests.docs.pages import code_blocks, page
from tests.faces.videos.helpers import SCENARIO, opened
from zenmux_emulator.pytest_plugin.server import EmulatorServer

MARKER = "run by tests/faces/videos/test_docs.py"


@pytest.fixture
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("docs"), SCENARIO) as started:
        yield started


def test_the_media_guide_s_video_example_runs_and_makes_the_video_it_says(server: EmulatorServer) -> None:
    [block] = [block for block in code_blocks(page("guide/media.md")) if block.marker == MARKER]
    namespace: dict[str, object] = {"__name__": "docs_example"}
    code = "\n" * (block.line - 1) + block.text.replace("127.0.0.1:8000", f"127.0.0.1:{server.port}")
    exec(compile(code, "docs/guide/media.md", "exec"), namespace)
    mp4 = namespace["mp4"]
    assert isinstance(mp4, bytes)
    film = opened(mp4)
    assert (film.width, film.height, film.seconds) == (1280, 720, 4.0)
