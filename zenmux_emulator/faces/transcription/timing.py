"""A transcript's words and segments spread evenly across the audio's length, and the subtitle
formats (SubRip, WebVTT) written from its segments."""

from __future__ import annotations

from dataclasses import dataclass

WORDS_PER_SEGMENT = 12


@dataclass(frozen=True, slots=True)
class Timed:
    text: str
    start: float
    end: float


def words(text: str, seconds: float) -> list[Timed]:
    said = text.split()
    step = seconds / max(len(said), 1)
    return [Timed(word, round(i * step, 3), round((i + 1) * step, 3)) for i, word in enumerate(said)]


def segments(text: str, seconds: float) -> list[Timed]:
    """Sentences (at most `WORDS_PER_SEGMENT` words each), each timed from its first word to its last."""
    timed = words(text, seconds)
    made: list[Timed] = []
    run: list[Timed] = []
    for word in timed:
        run.append(word)
        if len(run) == WORDS_PER_SEGMENT or word.text.endswith((".", "!", "?")):
            made.append(Timed(" ".join(w.text for w in run), run[0].start, run[-1].end))
            run = []
    if run:
        made.append(Timed(" ".join(w.text for w in run), run[0].start, run[-1].end))
    return made


def _stamp(seconds: float, separator: str) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def srt(text: str, seconds: float) -> str:
    return "".join(
        f"{i}\n{_stamp(s.start, ',')} --> {_stamp(s.end, ',')}\n{s.text}\n\n"
        for i, s in enumerate(segments(text, seconds), 1)
    )


def vtt(text: str, seconds: float) -> str:
    cues = "".join(f"{_stamp(s.start, '.')} --> {_stamp(s.end, '.')}\n{s.text}\n\n" for s in segments(text, seconds))
    return "WEBVTT\n\n" + cues
