"""Validated scenario files kept across starts (`scenario/cache.py`, issue 43 item 4): a second start
reads the file's entry instead of validating it again, an entry that cannot be read is ignored and
written again, and the control API's sources are not kept. Every folder here is a temporary one."""

from __future__ import annotations

import base64
import pickle
from pathlib import Path

import httpx

from tests.conftest import FROZEN
from tests.support.audio import wav_of
from tests.support.clients import API_KEY
from zenmux_emulator.faces.shipped import NAMES
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.scenario.cache import SUFFIX, ParseCache
from zenmux_emulator.scenario.loader import parse_file
from zenmux_emulator.settings import Settings

RULE = 'rules:\n  - name: cached\n    match: {{last_user: {{equals: "which"}}}}\n    reply: {{content: "{said}"}}\n'


def _ask(server: EmulatorServer) -> str:
    answer = httpx.post(
        server.base_url + "/chat/completions",
        json={"model": "openai/gpt-5", "messages": [{"role": "user", "content": "which"}]},
        headers={"Authorization": f"Bearer {API_KEY}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    content: str = answer.json()["choices"][0]["message"]["content"]
    return content


def _served(scenarios: Path, cache: Path) -> str:
    settings = Settings(port=0, scenarios=[str(scenarios)], clock=FROZEN, watch=False, cache_dir=cache)
    with EmulatorServer(settings) as server:
        return _ask(server)


def _setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    scenarios, cache = tmp_path / "scenarios", tmp_path / "cache"
    scenarios.mkdir()
    path = scenarios / "cached.yaml"
    path.write_text(RULE.format(said="from the file"), encoding="utf-8")
    return scenarios, cache, path


def test_a_second_start_reads_the_entry_the_first_wrote(tmp_path: Path) -> None:
    scenarios, cache, path = _setup(tmp_path)
    assert _served(scenarios, cache) == "from the file"
    entries = list(cache.glob("*" + SUFFIX))
    assert len(entries) == 1
    # the entry, not the file, is what a second start serves: swapped for another file's validation
    # under the same key, the answer follows the entry
    other, outline = parse_file(RULE.format(said="from the entry"), str(path), NAMES)
    key = ParseCache(cache).key(path.read_text(encoding="utf-8"), str(path), NAMES)
    assert entries[0].name == key + SUFFIX
    entries[0].write_bytes(pickle.dumps((other, outline.rules)))
    assert _served(scenarios, cache) == "from the entry"


def test_a_changed_file_is_validated_again(tmp_path: Path) -> None:
    scenarios, cache, path = _setup(tmp_path)
    assert _served(scenarios, cache) == "from the file"
    path.write_text(RULE.format(said="changed"), encoding="utf-8")
    assert _served(scenarios, cache) == "changed"
    assert len(list(cache.glob("*" + SUFFIX))) == 2


def test_a_corrupt_entry_is_ignored_and_written_again(tmp_path: Path) -> None:
    scenarios, cache, _ = _setup(tmp_path)
    assert _served(scenarios, cache) == "from the file"
    (entry,) = cache.glob("*" + SUFFIX)
    for broken in (b"not a pickle", pickle.dumps({"a": "dict"}), entry.read_bytes()[:40]):
        entry.write_bytes(broken)
        assert _served(scenarios, cache) == "from the file"
        spec, _ = pickle.loads(entry.read_bytes())
        assert spec.rules[0].name == "cached"


def test_the_control_apis_sources_are_not_kept(tmp_path: Path) -> None:
    scenarios, cache, _ = _setup(tmp_path)
    settings = Settings(port=0, scenarios=[str(scenarios)], clock=FROZEN, watch=False, cache_dir=cache)
    with EmulatorServer(settings) as server:
        loaded = httpx.post(
            server.origin + "/_emulator/scenarios?name=extra",
            content="rules:\n  - name: extra\n    reply: {content: x}\n",
            headers={"Content-Type": "application/yaml"},
            timeout=60,
        )
        assert loaded.status_code == 201, loaded.text
    assert len(list(cache.glob("*" + SUFFIX))) == 1


def test_a_file_that_gives_a_file_is_read_again_at_each_start(tmp_path: Path) -> None:
    """A rule's `speech.file` is read at load: a kept entry would hold the file's old bytes, so a file
    that gives one is not kept, and an edit to the audio is answered at the next start."""
    scenarios, cache = tmp_path / "scenarios", tmp_path / "cache"
    (scenarios / "sounds").mkdir(parents=True)
    sound = scenarios / "sounds" / "greeting.wav"
    (scenarios / "speech.yaml").write_text(
        "rules:\n  - name: greeting\n    match: {api: speech, last_user: {contains: greeting}}\n"
        "    reply: {speech: {file: sounds/greeting.wav}}\n",
        encoding="utf-8",
    )

    def spoken() -> bytes:
        settings = Settings(port=0, scenarios=[str(scenarios)], clock=FROZEN, watch=False, cache_dir=cache)
        with EmulatorServer(settings) as server:
            answer = httpx.post(
                server.base_url + "/audio/speech",
                json={"model": "openai/tts-1", "input": "a greeting", "voice": "alloy", "response_format": "wav"},
                headers={"Authorization": f"Bearer {API_KEY}"},
                timeout=60,
            )
            assert answer.status_code == 200, answer.text
            return base64.b64decode(answer.json()["audio"])  # ZenMux's JSON, the audio in base64

    for tone in (b"\x01\x02", b"\x03\x04"):
        sound.write_bytes(wav_of(tone * 800, 24_000))
        assert spoken() == sound.read_bytes()
    assert list(cache.glob("*" + SUFFIX)) == []
