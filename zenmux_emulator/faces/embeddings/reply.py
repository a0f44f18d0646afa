"""The reply keys a rule for embeddings requests may use beyond every face's (`SPEC.reply`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from zenmux_emulator.scenario.schema import ReplyKeys


class VectorsReply(ReplyKeys):
    """`vectors`: the vector an input gets, by its exact text."""

    vectors: dict[str, Annotated[list[float], Field(min_length=1)]] | None = Field(
        None,
        description=(
            "the vector an input gets, keyed by its exact text (made unit length and cut or padded "
            "to the dimensions asked for); other inputs get the computed vector"
        ),
    )
