"""A transcript's words and segments: a rule's own (`transcript.segments`), else spread evenly across
the audio's length; and the subtitle formats (SubRip, WebVTT) written from its segments."""

from __future__ import annotations

from dataclasses import dataclass

from zenmux_emulator.faces.transcription.reply import Segment

WORDS_PER_SEGMENT = 12


@dataclass(frozen=True, slots=True)
class Timed:
    text: str
    start: float
    end: float


def words(text: str, seconds: float, start: float = 0.0) -> list[Timed]:
    """The text's words spread evenly over `seconds` from `start`."""
    said = text.split()
    step = seconds / max(len(said), 1)
    return [Timed(word, round(start + i * step, 3), round(start + (i + 1) * step, 3)) for i, word in enumerate(said)]


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


@dataclass(frozen=True, slots=True)
class Said:
    """A transcript as answered: its text, the audio's length, and its segments and words, timed."""

    text: str
    seconds: float
    segments: list[Timed]
    words: list[Timed]


def evenly(text: str, seconds: float) -> Said:
    return Said(text, seconds, segments(text, seconds), words(text, seconds))


def scripted(script: list[Segment], seconds: float) -> Said:
    """A rule's own segments, each with its own words, else its words spread evenly across it."""
    timed: list[Timed] = []
    for segment in script:
        if segment.words is None:
            timed += words(segment.text, segment.end - segment.start, segment.start)
        else:
            timed += [Timed(w.word, w.start, w.end) for w in segment.words]
    text = " ".join(s.text for s in script)
    return Said(text, seconds, [Timed(s.text, s.start, s.end) for s in script], timed)


def _stamp(seconds: float, separator: str) -> str:
    millis = round(seconds * 1000)
    hours, millis = divmod(millis, 3_600_000)
    minutes, millis = divmod(millis, 60_000)
    secs, millis = divmod(millis, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def srt(cues: list[Timed]) -> str:
    return "".join(f"{i}\n{_stamp(s.start, ',')} --> {_stamp(s.end, ',')}\n{s.text}\n\n" for i, s in enumerate(cues, 1))


def vtt(cues: list[Timed]) -> str:
    return "WEBVTT\n\n" + "".join(f"{_stamp(s.start, '.')} --> {_stamp(s.end, '.')}\n{s.text}\n\n" for s in cues)
