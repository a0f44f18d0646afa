"""The COULD routes of §4.1 over HTTP: the `/objectiveai/chat/completions` alias of the SDK before
2025-10-06, `publish`, and marking a stored completion for the training table."""

from __future__ import annotations

from tests.conftest import MakeServer
from tests.control.helpers import control

from .examples import REQUEST_A
from .wire_helpers import error_of, query, raw


def test_the_chat_completions_alias_answers_query_bodies(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    alias = raw(server, "a", REQUEST_A, path="/chat/completions")
    assert alias.status == 200
    assert alias.json()["model"] == "objectiveai/2FgLFqAf8M6MTa6MtGLLwM"
    same = raw(server, "b", REQUEST_A)

    def answers(body: dict[str, object]) -> list[tuple[object, ...]]:  # the response ids differ, and ids after them
        return [(c["message"], c["confidence_id"], c["confidence"], c["model"]) for c in body["choices"]]  # type: ignore[attr-defined,index]

    assert answers(alias.json()) == answers(same.json())
    error_of(raw(server, "a", {**REQUEST_A, "model": "openai/gpt-5"}, path="/chat/completions"), 400, "invalid_model")
    paths = [e["path"] for e in control(server, "GET", "journal?session=a").json()["entries"]]
    assert paths == ["/objectiveai/chat/completions"] * 2


def test_publish_and_the_training_table_mark(make_server: MakeServer) -> None:
    server = make_server("rules: []\n")
    done = query(server, "s", REQUEST_A)
    base = f"/query/completions/{done['id']}"
    assert raw(server, None, None, path=f"{base}/publish").status == 204
    assert "correct_confidence_id" not in raw(server, None, None, path=base, method="GET").json()
    wanted = done["choices"][0]["confidence_id"]
    assert raw(server, None, {"correct_confidence_id": wanted}, path=f"{base}/training_table").status == 204
    assert raw(server, None, None, path=base, method="GET").json()["correct_confidence_id"] == wanted
    assert raw(server, None, None, path=f"{base}/training_table", method="DELETE").status == 204
    assert "correct_confidence_id" not in raw(server, None, None, path=base, method="GET").json()
    error_of(raw(server, None, {"correct_confidence_id": 3}, path=f"{base}/training_table"), 400, "invalid_request")
    error_of(raw(server, None, None, path="/query/completions/nope/publish"), 404, "completion_not_found")
    error_of(
        raw(server, None, {}, path="/query/completions/nope/training_table", method="DELETE"),
        404,
        "completion_not_found",
    )
    assert raw(server, None, None, path=f"{base}/publish", api_key=None).status == 401
