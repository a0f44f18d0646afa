"""Recording and replaying media (issue 38, item 5): images, speech and a transcription recorded from
an upstream emulator through the openai SDK keep their media as files in `media/` beside
recorded.yaml (no base64 in the YAML), replay answers the very bytes recorded, a transcription's
form reaches the upstream whole, and no key is written anywhere."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import wave
from pathlib import Path

from tests.conftest import REPO, MakeServer
from tests.record.helpers import recorded, recorder, serving, upstream
from tests.support.audio import wav
from tests.support.clients import http, sdk
from zenmux_emulator.record.store import FILENAME

KEY = "sk-ai-v1-media-recording-secret-0042"
SOUND = bytes(range(256))
"""What the uploaded audio repeats: not silence, so the recorded file is the upload's own bytes."""
MEDIA_UPSTREAM = """\
rules:
  - name: note
    match: {api: transcription}
    reply: {content: "Meet me at the station at six."}
"""


def every_file(out: Path) -> list[Path]:
    return [path for path in out.rglob("*") if path.is_file()]


def test_media_is_recorded_as_files_beside_the_yaml_and_replayed_byte_for_byte(
    make_server: MakeServer, tmp_path: Path
) -> None:
    source = upstream(make_server, MEDIA_UPSTREAM)
    out = tmp_path / "recorded"
    upload = wav(1.5, SOUND)
    with recorder(source, out) as recording, sdk(recording, "media", api_key=KEY) as client:
        image = client.images.with_raw_response.generate(
            model="openai/gpt-image-2", prompt="a red kite", size="1024x1024"
        )
        speech = client.audio.speech.with_raw_response.create(
            model="openai/gpt-4o-mini-tts", voice="alloy", input="Read this aloud.", response_format="wav"
        )
        heard = client.audio.transcriptions.create(model="openai/whisper-1", file=("note.wav", upload, "audio/wav"))
    assert heard.text == "Meet me at the station at six."
    [sent] = http(f"{source.origin}/_emulator/journal?path=/api/v1/audio/transcriptions").json()["entries"]
    assert sent["body"]["file"]["bytes"] == len(upload)  # the form went upstream whole, not its journal view

    text = (out / FILENAME).read_text(encoding="utf-8")
    assert "b64_json" not in text and "RIFF" not in text
    raws = {rule["match"]["api"]: rule["reply"]["raw"] for rule in recorded(out)["rules"] if "raw" in rule["reply"]}
    assert set(raws) == {"images", "speech", "transcription"}
    assert "body_file" not in raws["transcription"]  # a short JSON answer stays in the YAML, readable
    assert raws["speech"]["content_type"].startswith("audio/wav") and raws["speech"]["body_file"].endswith(".wav")
    assert raws["images"]["body_file"].startswith("media/") and "body" not in raws["images"]
    assert (out / raws["speech"]["body_file"]).read_bytes() == speech.content
    assert (out / raws["images"]["body_file"]).read_bytes() == image.content
    for path in every_file(out):
        assert KEY.encode() not in path.read_bytes(), path
    exchanges = {line["path"]: line for line in map(json.loads, (out / "exchanges.jsonl").read_text().splitlines())}
    spoken_line = exchanges["/api/v1/audio/speech"]
    assert (spoken_line["answer"], spoken_line["answer_file"]) == (None, raws["speech"]["body_file"])

    with serving(out) as replay, sdk(replay, "again", api_key="sk-other") as client:
        again = client.images.with_raw_response.generate(
            model="openai/gpt-image-2", prompt="a red kite", size="1024x1024"
        )
        spoken = client.audio.speech.with_raw_response.create(
            model="openai/gpt-4o-mini-tts", voice="alloy", input="Read this aloud.", response_format="wav"
        )
        assert again.content == image.content
        assert spoken.content == speech.content
        with wave.open(io.BytesIO(spoken.content)) as read:
            assert read.getnframes() > 0
        assert client.audio.transcriptions.create(
            model="openai/whisper-1", file=("note.wav", upload, "audio/wav")
        ).text == ("Meet me at the station at six.")
        answered = http(f"{replay.origin}/_emulator/journal?session=again").json()["entries"]
    assert [entry["rule"] is not None and entry["status"] for entry in answered] == [200, 200, 200]


def test_a_body_file_that_is_missing_or_outside_the_folder_is_a_located_problem(tmp_path: Path) -> None:
    scenario = tmp_path / "a.yaml"
    lines = "rules:\n  - name: spoken\n    match: {api: speech}\n    reply: {raw: {content_type: audio/wav, body_file: %s}}\n"
    scenario.write_text(lines % "media/gone.wav", encoding="utf-8")
    missing = validate(tmp_path)
    assert missing.returncode == 1
    assert (
        f"{scenario}:4:" in missing.stderr and "cannot read 'media/gone.wav' beside the scenario file" in missing.stderr
    )
    scenario.write_text(lines % "../secrets.txt", encoding="utf-8")
    outside = validate(tmp_path)
    assert outside.returncode == 1 and "inside the scenario file's folder" in outside.stderr
    assert "Traceback" not in missing.stderr + outside.stderr
    (tmp_path.parent / "secret.wav").write_bytes(wav(0.1, SOUND))
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "link.wav").symlink_to(tmp_path.parent / "secret.wav")
    scenario.write_text(lines % "media/link.wav", encoding="utf-8")
    linked = validate(tmp_path)  # a link that leaves the folder is refused, as a rule's other files are
    assert linked.returncode == 1 and "is outside the scenario file's folder" in linked.stderr
    (tmp_path / "media" / "here.wav").write_bytes(wav(0.1, SOUND))
    scenario.write_text(lines % "media/here.wav", encoding="utf-8")
    assert validate(tmp_path).returncode == 0


def validate(folder: Path) -> subprocess.CompletedProcess[str]:
    """`python -m zenmux_emulator validate FOLDER`, run from this checkout."""
    return subprocess.run(
        [sys.executable, "-m", "zenmux_emulator", "validate", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
