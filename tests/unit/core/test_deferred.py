"""A face's routes are registered at start-up and its handlers imported on its first request
(`core/deferred.py`): every shipped face's `FaceSpec` lists exactly the routes its `routes.py` makes,
in its order, and a list that differs is named at the first request instead of answering wrongly."""

from __future__ import annotations

import pytest

from zenmux_emulator.core.deferred import DeferredRoutes, LoadedRoutes, made_routes
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.faces.shipped import FACES
from zenmux_emulator.server.app import create_core
from zenmux_emulator.settings import Settings

DEFERRED = [face for face in FACES if isinstance(face.routes, DeferredRoutes)]


def test_every_face_but_chat_is_deferred() -> None:
    assert {face.name for face in FACES} - {face.name for face in DEFERRED} == {"chat"}


@pytest.mark.parametrize("face", DEFERRED, ids=lambda face: face.name)
def test_a_deferred_face_lists_the_routes_its_module_makes(face: object) -> None:
    deferred = face.routes  # type: ignore[attr-defined]
    assert isinstance(deferred, DeferredRoutes)
    made = made_routes(deferred.module, create_core(Settings(), Journal(10)))
    assert tuple(made) == deferred.table
    assert all(callable(handler) for handler in made.values())


def test_a_list_that_differs_is_named_at_the_first_request() -> None:
    wrong = DeferredRoutes("zenmux_emulator.faces.rerank.routes", (("POST", "/api/v1/rerank"), ("GET", "/elsewhere")))
    with pytest.raises(
        RuntimeError,
        match=r"rerank\.routes\.routes makes \[\('POST', '/api/v1/rerank'\)\], its FaceSpec lists .*'/elsewhere'",
    ):
        LoadedRoutes(wrong, create_core(Settings(), Journal(10))).load()
