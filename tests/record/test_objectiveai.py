"""The ObjectiveAI face through the recorder: unary and streamed Query completions are recorded as
their exact bytes, and replayed as the same JSON and the same events."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import SHIPPED
from tests.faces.objectiveai.examples import REQUEST_A, REQUEST_B
from tests.faces.objectiveai.wire_helpers import query, raw, raw_sse
from tests.record.helpers import recorded, recorder, serving


def test_query_completions_replay_as_recorded(tmp_path: Path) -> None:
    out = tmp_path / "recorded"
    with serving(SHIPPED) as source, recorder(source, out) as proxy:
        unary = query(proxy, "oa", REQUEST_A)
        _, events = raw_sse(proxy, "oa", REQUEST_B)
        unknown = raw(proxy, "oa", {**REQUEST_A, "model": "not a model"})
    rules = recorded(out)["rules"]
    assert [r["match"]["api"] for r in rules] == ["objectiveai", "objectiveai"]
    assert all("raw" in r["reply"] for r in rules) and "model" not in rules[0]["match"]
    assert unknown.status == 400 and len(rules) == 2  # the upstream refused it too; not recorded

    with serving(out, strict=True) as replay:
        assert query(replay, "oa", REQUEST_A) == unary
        _, again = raw_sse(replay, "oa", REQUEST_B)
    assert again.chunks == events.chunks and again.done
