"""ZenMux's native video jobs over raw HTTP, as its docs' curl sends them: a job is queued, runs and
succeeds on the emulator's clock (a test advances it, nothing waits), its video is an MP4 PyAV opens
at the length and size asked for, a rule fails it or makes it slow, and bad input is ZenMux's 400
naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tests.conftest import MakeServer, served_yaml
from tests.control.helpers import control, error_of
from tests.faces.videos.helpers import MODEL, SCENARIO, advance, download, opened, send, submit
from zenmux_emulator.pytest_plugin.server import EmulatorServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorServer]:
    with served_yaml(tmp_path_factory.mktemp("videos"), SCENARIO) as started:
        yield started


def poll(server: EmulatorServer, job: str) -> dict[str, Any]:
    answer = send(server, f"/api/v1/videos/{job}")
    assert answer.status == 200, answer.text
    polled: dict[str, Any] = answer.json()
    return polled


def test_a_job_is_queued_then_running_then_succeeds_on_the_clock(server: EmulatorServer) -> None:
    created = submit(server, "a cat reading a book", resolution="480p", ratio="16:9", duration=2)
    assert created.status == 200, created.text
    job = created.json()
    assert job["status"] == "queued" and job["model"] == MODEL and len(job["id"]) == 32
    assert poll(server, job["id"]) == job  # polled right after submit: queued, never 404
    advance(server, 1)
    assert poll(server, job["id"]) == {**job, "status": "running"}
    advance(server, 9)
    done = poll(server, job["id"])
    assert done["status"] == "succeeded"
    url = done["content"]["video_url"]
    assert url == f"{server.origin}/api/v1/videos/{job['id']}/content"
    status, content_type, video = download(url)
    assert (status, content_type) == (200, "video/mp4")
    film = opened(video)
    assert (film.width, film.height, film.seconds, film.codec) == (854, 480, 2.0, "h264")
    assert film.frames == 48


@pytest.mark.parametrize(("resolution", "ratio", "size"), [("720p", "9:16", (720, 1280)), ("480p", "1:1", (480, 480))])
def test_the_video_has_the_resolution_and_ratio_asked_for(
    server: EmulatorServer, resolution: str, ratio: str, size: tuple[int, int]
) -> None:
    job = submit(server, "a lighthouse", resolution=resolution, ratio=ratio, duration=1).json()
    status, _, _ = download(f"{server.origin}/api/v1/videos/{job['id']}/content")
    assert status == 404  # not made yet
    advance(server, 10)
    status, _, video = download(poll(server, job["id"])["content"]["video_url"])
    film = opened(video)
    assert (film.width, film.height, film.seconds) == (*size, 1.0)


def test_the_same_prompt_and_seed_make_the_same_bytes(server: EmulatorServer) -> None:
    jobs = [submit(server, "a red kite", resolution="480p", duration=1, seed=seed).json()["id"] for seed in (7, 7, 8)]
    advance(server, 10)
    videos = [download(f"{server.origin}/api/v1/videos/{job}/content")[2] for job in jobs]
    assert len(set(jobs)) == 3
    assert videos[0] == videos[1]
    assert videos[0] != videos[2]


def test_the_same_request_makes_the_same_bytes_on_another_server_with_the_same_seed(
    make_server: MakeServer,
) -> None:
    made = []
    for _ in range(2):
        server = make_server(SCENARIO, seed=11)
        job = submit(server, "a kite over the sea", resolution="480p", duration=1).json()
        advance(server, 10)
        made.append(download(f"{server.origin}/api/v1/videos/{job['id']}/content")[2])
    assert made[0] == made[1] and opened(made[0]).frames == 24


def test_a_rule_s_video_fails_the_job(server: EmulatorServer) -> None:
    job = submit(server, "something forbidden", resolution="480p", duration=1).json()
    assert job["status"] == "queued"
    advance(server, 10)
    failed = poll(server, job["id"])
    assert failed["status"] == "failed"
    assert failed["error"] == {"code": "generation_failed", "message": "The prompt was flagged by the content filter"}
    assert "content" not in failed
    assert download(f"{server.origin}/api/v1/videos/{job['id']}/content")[0] == 404


def test_a_rule_s_video_after_s_is_how_long_the_job_takes(server: EmulatorServer) -> None:
    job = submit(server, "a slow sunrise", resolution="480p", duration=1).json()
    advance(server, 60)
    assert poll(server, job["id"])["status"] == "running"  # the default (10 s) would be done
    advance(server, 60)
    assert poll(server, job["id"])["status"] == "succeeded"


def test_a_bad_video_key_is_refused_at_load_with_its_line(server: EmulatorServer) -> None:
    bad = "rules:\n  - name: bad\n    match: {api: videos}\n    reply: {video: {after_s: -5, fail: oops}}\n"
    error = error_of(control(server, "POST", "scenarios?name=bad-video", text=bad), 400, "invalid_scenario")
    assert [(p["line"], p["path"]) for p in error["problems"]] == [
        (4, "rules[0].reply.video.after_s"),
        (4, "rules[0].reply.video.fail"),
    ]
    assert "did you mean 'fails'" in error["problems"][1]["reason"]


def test_a_rule_s_error_refuses_the_submission(server: EmulatorServer) -> None:
    answer = submit(server, "too busy to film")
    assert answer.status == 429
    assert answer.json()["error"]["code"] == "429" and answer.json()["error"]["message"] == "Slow down"


def test_an_unknown_job_is_zenmux_s_404(server: EmulatorServer) -> None:
    answer = send(server, "/api/v1/videos/fff8799f449e4ada8ceebe0079f7c01c")
    assert answer.status == 404
    assert answer.json() == {
        "error": {
            "code": "404",
            "type": "not_found",
            "message": "Video task 'fff8799f449e4ada8ceebe0079f7c01c' not found",
        }
    }


TEXT = [{"type": "text", "text": "a cat"}]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"model": MODEL}, "content"),
        ({"model": MODEL, "content": []}, "content"),
        ({"content": TEXT}, "model"),
        ({"model": "openai/gpt-5", "content": TEXT}, "openai/gpt-5"),
        ({"model": MODEL, "content": [{"type": "picture"}]}, "content[0].type"),
        ({"model": MODEL, "content": [{"type": "text"}]}, "content[0].text"),
        ({"model": MODEL, "content": [{"type": "text", "text": 5}]}, "content[0].text"),
        ({"model": MODEL, "content": [None]}, "content[0]"),
        ({"model": MODEL, "content": [*TEXT, {"type": "image_url", "image_url": {"url": "ftp://x"}}]}, "content[1].image_url.url"),
        ({"model": MODEL, "content": [*TEXT, {"type": "image_url", "role": "reference_audio", "image_url": {"url": "https://x/a.png"}}]}, "content[1].role"),
        ({"model": MODEL, "content": TEXT, "duration": 30}, "duration"),
        ({"model": MODEL, "content": TEXT, "duration": "long"}, "duration"),
        ({"model": MODEL, "content": TEXT, "resolution": "4k"}, "resolution"),
        ({"model": MODEL, "content": TEXT, "ratio": "2:1"}, "ratio"),
        ({"model": MODEL, "content": TEXT, "seed": 1.5}, "seed"),
        ({"model": MODEL, "content": TEXT, "generate_audio": "loud"}, "generate_audio"),
    ],
)  # fmt: skip
def test_bad_input_is_zenmux_s_400_naming_the_field(server: EmulatorServer, body: dict[str, Any], field: str) -> None:
    answer = send(server, "/api/v1/videos", body)
    assert answer.status == 400, answer.text
    error = answer.json()["error"]
    assert error["type"] == "invalid_params" and error["code"] == "400"
    assert field in error["message"]


def test_a_body_that_is_not_json_is_a_400(server: EmulatorServer) -> None:
    answer = send(server, "/api/v1/videos", "not an object")
    assert answer.status == 400 and answer.json()["error"]["type"] == "invalid_params"


def test_the_journal_keeps_the_submission_and_the_polls(server: EmulatorServer) -> None:
    job = submit(server, "a journalled kite", resolution="480p", duration=1).json()
    poll(server, job["id"])
    entries = orjson.loads(send(server, "/_emulator/journal?limit=1000").text)["entries"]
    mine = [entry for entry in entries if job["id"] in entry["path"] or entry.get("response") == job]
    assert [(entry["api"], entry["method"], entry["status"]) for entry in mine] == [
        ("videos", "POST", 200),
        ("videos", "GET", 200),
    ]
    assert mine[0]["body"]["content"] == [{"type": "text", "text": "a journalled kite"}]
