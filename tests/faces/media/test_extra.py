"""The media extra is imported on a media request's first use only, and without it a media face
answers a 501 in its envelope that says what to install (the extra's packages hidden from a fresh
interpreter by modules of the same names that fail to import)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import json, sys, urllib.error, urllib.request
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.settings import Settings

def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Authorization": "Bearer sk-test", "Content-Type": "application/json", "Accept": "application/octet-stream"})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as failed:
        with failed:
            return failed.code, failed.read()

heavy = ("PIL", "lameenc", "soundfile", "numpy", "av")
with EmulatorServer(Settings(port=0)) as server:
    out = {}
    out["chat"] = post(server.base_url + "/chat/completions", {
        "model": "openai/gpt-5", "messages": [{"role": "user", "content": "hi"}]})[0]
    out["loaded_after_chat"] = [name for name in heavy if name in sys.modules]
    status, body = post(server.base_url + "/images/generations", {"model": "gpt-image-2", "prompt": "a kite"})
    out["image"] = [status, json.loads(body)]
    out["wav"] = post(server.base_url + "/audio/speech", {
        "model": "openai/tts-1", "voice": "alloy", "input": "hi", "response_format": "wav"})[0]
    status, body = post(server.base_url + "/audio/speech", {
        "model": "openai/tts-1", "voice": "alloy", "input": "hi", "response_format": "mp3"})
    out["mp3"] = [status, json.loads(body)]
    status, body = post(server.base_url + "/videos", {
        "model": "bytedance/doubao-seedance-2.0", "content": [{"type": "text", "text": "a kite"}], "duration": 1})
    job = json.loads(body)["id"]
    out["video_job"] = status
    out["loaded_after_video_job"] = [name for name in ("av",) if name in sys.modules]
    post(server.origin + "/_emulator/clock", {"advance": 60})
    try:
        urllib.request.urlopen(server.base_url + "/videos/" + job + "/content").close()
        out["video"] = [200, None]
    except urllib.error.HTTPError as failed:
        with failed:
            out["video"] = [failed.code, json.loads(failed.read())]
print(json.dumps(out))
"""


def test_without_the_extra_text_runs_and_a_media_face_says_what_to_install(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden"
    (hidden / "PIL").mkdir(parents=True)
    (hidden / "PIL" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    (hidden / "av").mkdir()
    (hidden / "av" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    for name in ("lameenc", "soundfile"):
        (hidden / f"{name}.py").write_text("raise ImportError('hidden by the test')\n")
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hidden), str(root)])}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120, cwd=root
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["chat"] == 200 and out["loaded_after_chat"] == []
    status, envelope = out["image"]
    assert status == 501 and "zenmux-emulator[media]" in envelope["error"]["message"]
    assert "PIL" in envelope["error"]["message"]
    assert out["wav"] == 200  # the standard library's wave needs no extra
    status, envelope = out["mp3"]
    assert status == 501 and "lameenc" in envelope["error"]["message"]
    assert out["video_job"] == 200 and out["loaded_after_video_job"] == []  # a job runs without the extra
    status, envelope = out["video"]
    assert status == 501 and "zenmux-emulator[video]" in envelope["error"]["message"]
