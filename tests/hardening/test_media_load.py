"""The media faces drew their pictures and encoded their audio in `render`, on the event loop: six
3840x2160 PNGs and 16 minutes of mp3, asked together, held every other client for seconds (a
health probe waited 2.1 to 2.9 s on the shared test machine). The media endpoint now makes them in a
thread once the reply is drafted, and a probe sent meanwhile is answered promptly, whether the
audio reads the request's input or a rule's `content` (known only after matching)."""

from __future__ import annotations

import base64
import threading
import time

import orjson
import pytest

from tests.conftest import MakeServer
from tests.hardening.conftest import WireTo
from tests.hardening.stalls import assert_no_stall, timed_with_probes

LONG_TEXT = ("The quick brown fox jumps over the lazy dog, twice. " * 80)[:4096]
RULES = f"""\
rules:
  - name: read-the-rule
    match: {{api: speech, last_user: {{contains: "read the rule"}}}}
    reply: {{content: "{LONG_TEXT}"}}
"""
PROBE_WITHIN_S = 0.75
"""A probe (every 5 ms, then every 50 ms) never waits this long with the media made in a thread:
the slowest took 0.03 to 0.06 s on the shared test machine, 2.1 to 2.9 s with the media made on
the loop; the margin is for a loaded machine, where a lone probe has waited over a second."""
ANSWER_WITHIN_S = 90.0
"""The costly requests themselves: their work is still done, seconds of it on the loaded machine;
the probes are what is bounded."""
IMAGES = {
    "model": "openai/gpt-image-2",
    "prompt": "a kite over a field",
    "size": "3840x2160",
    "n": 6,
    "output_format": "png",
}


@pytest.mark.parametrize("read", ["input", "rule"])
def test_large_images_and_long_speech_do_not_hold_a_health_probe(
    make_server: MakeServer, wire_to: WireTo, read: str
) -> None:
    server = make_server(RULES)
    text = LONG_TEXT if read == "input" else "read the rule, please"
    voice = "alloy" if read == "input" else "echo"  # nothing made for one case is kept for the other
    speech = {"model": "openai/tts-1", "input": text, "voice": voice, "response_format": "mp3", "speed": 0.25}
    images = {**IMAGES, "prompt": f"{IMAGES['prompt']}, {read} {time.time_ns()}"}
    json = [("Content-Type", "application/json"), ("Accept", "application/json")]

    def warm() -> None:  # the one-time imports (Pillow, lameenc) and tones, on small requests
        wire = wire_to(server)
        assert (
            wire.send(
                "POST", "/api/v1/images/generations", orjson.dumps({**IMAGES, "size": "1024x1024", "n": 1}), json
            )[0]
            == 200
        )
        assert wire.send("POST", "/api/v1/audio/speech", orjson.dumps({**speech, "input": "hi"}), json)[0] == 200

    answers: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def send() -> tuple[int, bytes]:

        def post(name: str, path: str, body: dict[str, object]) -> None:
            answers[name] = wire_to(server).send("POST", path, orjson.dumps(body), json)

        both = [
            threading.Thread(target=post, args=("images", "/api/v1/images/generations", images)),
            threading.Thread(target=post, args=("speech", "/api/v1/audio/speech", speech)),
        ]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join(ANSWER_WITHIN_S)
        statuses = [answers[name][0] for name in ("images", "speech")]
        return max(statuses), orjson.dumps(
            {name: answer[2][:300].decode() for name, answer in answers.items() if answer[0] != 200}
        )

    started = time.perf_counter()
    timed = timed_with_probes(server, send, warm=warm)
    assert_no_stall(timed, probe_within=PROBE_WITHIN_S, answer_within=ANSWER_WITHIN_S)
    assert timed.status == 200, timed.body
    assert timed.probes > 5, f"{timed.probes} probes in {time.perf_counter() - started:.2f} s"
    pictures = orjson.loads(answers["images"][2])["data"]
    assert [base64.b64decode(p["b64_json"])[:8] for p in pictures] == [b"\x89PNG\r\n\x1a\n"] * 6
    audio = base64.b64decode(orjson.loads(answers["speech"][2])["audio"])
    assert len(audio) > 7_000_000  # 16 minutes of mp3 at 64 kbit/s: the long text read, not the short input
