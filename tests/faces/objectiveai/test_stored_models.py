"""Stored Query Models declared in scenario files (`query_models:`, §4.10), over HTTP: listed and
shown by the `/objectiveai/query_models` routes, named by id in requests, refused at load with file
and line, and reloaded with the files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeServer
from tests.scenarios.test_reload import edit_until, scenario_file
from tests.support.shipped import load_paths
from zenmux_emulator.foundation.errors import ScenarioError

from .examples import REQUEST_A, REQUEST_D
from .wire_helpers import error_of, query, raw

ID_A = "2FgLFqAf8M6MTa6MtGLLwM"
ID_D = "3yOw7ZxSvwCyH4DSxJOPXZ"


def stored(*models: object) -> str:
    """A scenario file declaring these Query Models (JSON is YAML)."""
    return "query_models:\n" + "".join(f"  - {json.dumps(m)}\n" for m in models) + "rules: []\n"


def listed(server: object) -> object:
    return raw(server, None, None, path="/query_models", method="GET").json()  # type: ignore[arg-type]


def test_declared_models_are_listed_shown_and_usable_by_name(make_server: MakeServer) -> None:
    server = make_server(stored(REQUEST_A["model"], REQUEST_D["model"]))
    assert listed(server) == {"data": sorted([ID_A, ID_D])}
    assert raw(server, None, None, path="/query_models/count", method="GET").json() == {"count": 2}
    shown = raw(server, None, None, path=f"/query_models/{ID_A}", method="GET").json()
    assert shown == raw(server, None, REQUEST_A["model"], path="/query_models").json()
    for name in (ID_A, f"objectiveai/{ID_A}"):
        body = query(server, "s", {**REQUEST_A, "model": name})
        assert body["model"] == f"objectiveai/{ID_A}" and len(body["choices"]) == 3


def test_a_model_in_another_file_is_found_too(make_server: MakeServer) -> None:
    server = make_server("rules: []\n", stored(REQUEST_D["model"]))
    body = query(server, "s", {**REQUEST_D, "model": ID_D})
    assert body["model"] == f"objectiveai/{ID_D}"


def test_an_undeclared_name_is_still_404(make_server: MakeServer) -> None:
    server = make_server(stored(REQUEST_D["model"]))
    error_of(raw(server, "s", {**REQUEST_A, "model": ID_A}), 404, "model_not_found")


@pytest.mark.parametrize(
    ("model", "line", "path", "words"),
    [
        (
            {
                "models": [{"id": "a/b", "mode": "vote", "weight": {"type": "static", "weight": 1}}],
                "weight": {"type": "static"},
            },
            3,
            "query_models[1].models[0].mode",
            "'generate'",
        ),
        (
            {
                "models": [
                    {"id": "a/b", "mode": "generate", "temprature": 1, "weight": {"type": "static", "weight": 1}}
                ],
                "weight": {"type": "static"},
            },
            3,
            "query_models[1].models[0].temprature",
            "did you mean 'temperature'",
        ),
        (
            {
                "models": [
                    {
                        "id": "a/b",
                        "mode": "generate",
                        "weight": {"type": "training_table", "base_weight": 1, "min_weight": 0, "max_weight": 2},
                    }
                ],
                "weight": {"type": "static"},
            },
            3,
            "query_models[1].models[0].weight.type",
            "like the Query Model's weight",
        ),
        ({"models": [], "weight": {"type": "static"}}, 3, "query_models[1].models", "at least 1"),
    ],
)
def test_a_bad_declared_model_fails_at_load_with_file_and_line(
    tmp_path: Path, model: object, line: int, path: str, words: str
) -> None:
    (tmp_path / "models.yaml").write_text(stored(REQUEST_D["model"], model), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_paths([tmp_path])
    [problem] = caught.value.problems
    assert problem.file.endswith("models.yaml") and problem.line == line
    assert problem.path == path and words in problem.reason, problem


def test_a_bad_declared_model_stops_the_server_from_starting(make_server: MakeServer) -> None:
    with pytest.raises(ScenarioError):
        make_server(stored({"models": [{"id": "a/b", "mode": "generate"}], "weight": {"type": "static"}}))


def test_declared_models_are_reloaded_with_the_files(make_server: MakeServer) -> None:
    server = make_server(stored(REQUEST_A["model"]), watch=True)
    assert listed(server) == {"data": [ID_A]}
    path: Path = scenario_file(server)
    assert edit_until(path, stored(REQUEST_D["model"]), lambda: listed(server) == {"data": [ID_D]})
    error_of(raw(server, "s", {**REQUEST_A, "model": ID_A}), 404, "model_not_found")
    assert query(server, "s", {**REQUEST_D, "model": ID_D})["model"] == f"objectiveai/{ID_D}"
