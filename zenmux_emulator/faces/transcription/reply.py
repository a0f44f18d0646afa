"""The reply keys a rule for transcription requests may use beyond every face's (`SPEC.reply`):
`transcript`, a transcript's own language, duration, segments and words with their timings."""

from __future__ import annotations

from typing import Annotated, Self

from pydantic import BaseModel, Field, model_validator

from zenmux_emulator.scenario.schema import LANGUAGE, ReplyKeys

Seconds = Annotated[float, Field(ge=0, le=86_400)]


class Span(BaseModel):
    """A stretch of the audio, in seconds from its start; `end` is not before `start`."""

    model_config = LANGUAGE

    start: Seconds = Field(description="seconds from the audio's start")
    end: Seconds = Field(description="seconds from the audio's start, not before start")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end < self.start:
            raise ValueError(f"end {self.end} is before start {self.start}")
        return self


class Word(Span):
    """One word and when it is said."""

    word: str = Field(min_length=1, description="the word as written in the transcript")


class Segment(Span):
    """One segment: its text, when it is said, and (optionally) its words with their own timings."""

    text: str = Field(min_length=1, description="the segment's text")
    words: list[Word] | None = Field(
        None,
        description="the segment's words with their timings, inside the segment's; else its words spread evenly across it",
    )

    @model_validator(mode="after")
    def _words_inside(self) -> Self:
        for i, word in enumerate(self.words or ()):
            if word.start < self.start or word.end > self.end:
                raise ValueError(
                    f"words[{i}] ({word.start}-{word.end}) is outside the segment ({self.start}-{self.end})"
                )
        return self


class Transcript(BaseModel):
    """What a transcription answers, beyond its text."""

    model_config = LANGUAGE

    language: str | None = Field(None, min_length=1, description="verbose_json's language (else the request's, or en)")
    duration: Seconds | None = Field(
        None, description="the audio's length in seconds, as answered (else the uploaded file's)"
    )
    segments: list[Segment] | None = Field(
        None,
        min_length=1,
        description=(
            "the transcript's segments in time order; their texts, joined by spaces, are the transcript "
            "(the reply's content is then not given)"
        ),
    )

    @model_validator(mode="after")
    def _in_order(self) -> Self:
        segments = self.segments or []
        for i in range(1, len(segments)):
            if segments[i].start < segments[i - 1].end:
                raise ValueError(f"segments[{i}] starts before segments[{i - 1}] ends")
        if segments and self.duration is not None and segments[-1].end > self.duration:
            raise ValueError(f"the last segment ends after the duration ({self.duration} s)")
        return self


class TranscriptReply(ReplyKeys):
    """`transcript`: a transcription's language, duration, segments and words."""

    transcript: Transcript | None = Field(
        None, description="the transcript's language, duration, and segments with their words and timings"
    )

    @model_validator(mode="after")
    def _one_text(self) -> Self:
        script = self.transcript
        if script is not None and script.segments and getattr(self, "content", None) is not None:
            raise ValueError("give the transcript's text as content or as transcript.segments, not both")
        return self
