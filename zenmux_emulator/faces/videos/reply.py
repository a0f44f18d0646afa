"""The reply keys a rule for video jobs may use beyond every face's (`SPEC.reply`): `video`, how long
the job takes on the emulator's clock and what it fails with."""

from __future__ import annotations

from pydantic import BaseModel, Field

from zenmux_emulator.scenario.schema import LANGUAGE, ReplyKeys

DEFAULT_AFTER_S = 10.0
"""How long a job takes on the emulator's clock when its rule does not say (`video.after_s`)."""


class VideoJob(BaseModel):
    """A job's course: done `after_s` seconds of the emulator's clock after it was made, failed with
    `fails` when given."""

    model_config = LANGUAGE

    after_s: float = Field(
        DEFAULT_AFTER_S,
        ge=0,
        le=86_400,
        description="seconds of the emulator's clock from the job's making until it is done (10 by default)",
    )
    fails: str | None = Field(
        None,
        min_length=1,
        description=(
            "the reason the job fails with once done (ZenMux's error.message, Veo's raiMediaFilteredReasons); "
            "null: it succeeds"
        ),
    )


class VideoReply(ReplyKeys):
    """`video`: how the job a rule answers goes."""

    video: VideoJob | None = Field(
        None, description="the job's course: {after_s: seconds on the emulator's clock until done, fails: reason}"
    )
