"""The reply keys a rule for rerank requests may use beyond every face's (`SPEC.reply`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from zenmux_emulator.scenario.schema import ReplyKeys


class ScoresReply(ReplyKeys):
    """`scores`: the relevance score a document gets, by its exact text."""

    scores: dict[str, Annotated[float, Field(ge=0, le=1)]] | None = Field(
        None,
        description="the relevance score a document gets, keyed by its exact text; others get the computed score",
    )
