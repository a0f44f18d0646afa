"""The guide's time page (docs/guide/time.md, issue 37 item 5) runs as written: its scenario of a
rate limit and a provider outage, and its client's retry loop paired with the emulator's clock,
which waits out 90 seconds of Retry-After without waiting them (a tenth of a second on an idle machine)."""

from __future__ import annotations

import contextlib
import io
import json
import time
import urllib.request
from pathlib import Path

from tests.conftest import FROZEN
from tests.docs.pages import code_blocks, page
from tests.docs.test_examples import here
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

PAGE = "guide/time.md"
MARKER = "run by tests/docs/test_time_guide.py"


def test_the_retry_loop_waits_out_90_seconds_of_retry_after_without_waiting_them(tmp_path: Path):
    blocks = code_blocks(page(PAGE))
    scenario = next(b.text for b in blocks if b.language == "yaml" and "summarise the report" in b.text)
    example = [b for b in blocks if b.marker == MARKER]
    assert [b.language for b in example] == ["python"]
    (tmp_path / "time.yaml").write_text(scenario, encoding="utf-8")
    out = io.StringIO()
    with EmulatorServer(Settings(port=0, scenarios=[str(tmp_path)], clock=FROZEN, watch=False)) as server:
        code = "\n" * (example[0].line - 1) + here(server, example[0].text)
        namespace: dict[str, object] = {"__name__": "docs_example"}
        began = time.perf_counter()
        with contextlib.redirect_stdout(out):
            exec(compile(code, PAGE, "exec"), namespace)
        took = time.perf_counter() - began
        namespace["client"].close()  # type: ignore[attr-defined]
        with urllib.request.urlopen(f"{server.origin}/_emulator/journal", timeout=30) as answer:
            entries = json.loads(answer.read())["entries"]
        with urllib.request.urlopen(f"{server.origin}/_emulator/clock", timeout=30) as answer:
            clock = json.loads(answer.read())
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["The report, summarised.", "The report, summarised again."]
    assert lines[2].startswith("90 s of the client's time in ")
    assert took < 10, (
        f"the example took {took:.2f}s of wall time"
    )  # 90 s without the fake time; 0.1 s on an idle machine
    answered = [(e["status"], e["response_headers"].get("Retry-After")) for e in entries]
    assert answered == [(200, None), (429, "30"), (503, "60"), (200, None)]
    assert [e["time"] - FROZEN for e in entries] == [0, 0, 30, 90]  # the journal's times are the clock's
    assert clock == {"now": FROZEN + 90, "frozen": True}
