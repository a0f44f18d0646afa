"""Every response carries the request's ids (`X-ZenMux-RequestId`, `x-request-id`): a stream the
emulator writes gets its own; one the recorder relays keeps the ids its upstream sent (the
recorder adds its own only where the upstream sent none)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import MakeServer
from tests.record.helpers import recorder, upstream
from tests.support.clients import API_KEY, Raw, http
from zenmux_emulator.pytest_plugin.server import EmulatorServer


def stream(server: EmulatorServer, prompt: str) -> Raw:
    body = {"model": "openai/gpt-5.4-mini", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    return http(
        f"{server.base_url}/chat/completions",
        json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {API_KEY}", "Content-Type": "application/json"},
    )


def last_request_id(server: EmulatorServer) -> str:
    return server.state.journal.entries()[-1].request_id


def test_a_written_stream_carries_its_ids_and_a_relayed_one_its_upstreams(
    make_server: MakeServer, tmp_path: Path
) -> None:
    origin = upstream(make_server)
    written = stream(origin, "stream me")
    assert written.status == 200 and written.text.endswith("data: [DONE]\n\n")
    assert written.headers["x-zenmux-requestid"] == written.headers["x-request-id"] == last_request_id(origin)
    with recorder(origin, tmp_path / "recorded") as proxy:
        relayed = stream(proxy, "stream me")
        assert relayed.status == 200 and relayed.text.endswith("data: [DONE]\n\n")
        assert relayed.headers["x-zenmux-requestid"] == relayed.headers["x-request-id"] == last_request_id(origin)
        assert relayed.headers["x-request-id"] != last_request_id(proxy)
