"""`drift --recorded DIR`: the exchanges `record` wrote (`exchanges.jsonl`) compared with what the
emulator answers to their requests now: no key, no network beyond the emulator."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from yarl import URL

from zenmux_emulator.cli.drift.probes import Probe
from zenmux_emulator.cli.drift.run import EMULATOR_KEY, TIMEOUT, Outcome, ask
from zenmux_emulator.cli.drift.shape import Answer, compare
from zenmux_emulator.record.exchanges import FILENAME

FACE_PATHS = (
    ("/api/anthropic/", "anthropic"),
    ("/chat/completions", "chat"),
    ("/responses", "responses"),
    ("/embeddings", "embeddings"),
    ("/rerank", "rerank"),
    ("/api/vertex-ai/", "vertex"),
    ("/api/objectiveai/", "objectiveai"),
)


class RecordingProblem(Exception):
    """The folder has no readable exchanges."""


@dataclass(frozen=True)
class Recorded:
    """One recorded exchange: the request as a probe, the upstream's answer as it came."""

    probe: Probe
    answer: Answer


def face_of(path: str) -> str:
    return next((face for part, face in FACE_PATHS if part in path), "other")


def _recorded(line: dict[str, Any]) -> Recorded:
    path = str(line["path"])
    face = face_of(path)
    given = line.get("body")
    body: dict[str, Any] = given if isinstance(given, dict) else {}
    headers = {"anthropic-version": "2023-06-01"} if face == "anthropic" else {}
    probe = Probe(face, str(line.get("rule") or path), path, body, str(body.get("model") or ""), 0, headers)
    events = line.get("events")
    answer = Answer(
        int(line["status"]),
        dict(line.get("headers") or {}),
        body=line.get("answer"),
        events=[(e[0], e[1]) for e in events] if isinstance(events, list) else None,
    )
    return Recorded(probe, answer)


def read_recorded(folder: Path) -> list[Recorded]:
    """Every recorded exchange of the folder, the last recording of each request (path and body)."""
    path = folder / FILENAME
    try:
        lines = path.read_bytes().splitlines()
    except OSError as exc:
        raise RecordingProblem(f"{path}: {exc.strerror}; record with `zenmux-emulator record --out {folder}`") from None
    latest: dict[bytes, Recorded] = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
            key = orjson.dumps([line["path"], line.get("body")], option=orjson.OPT_SORT_KEYS)
            latest[key] = _recorded(line)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            raise RecordingProblem(f"{path}:{number}: not a recorded exchange") from None
    return list(latest.values())


async def run_recorded(recorded: Sequence[Recorded], emulator: URL) -> list[Outcome]:
    """Each recorded request sent to the emulator; its answer compared with the recorded one."""
    outcomes = []
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        for exchange in recorded:
            emulated = await ask(session, emulator, EMULATOR_KEY, exchange.probe)
            differences = compare(exchange.answer, emulated)
            outcomes.append(Outcome(exchange.probe, exchange.answer.status, emulated.status, differences))
    return outcomes
