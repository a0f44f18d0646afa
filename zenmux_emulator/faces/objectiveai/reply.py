"""The reply keys a rule for ObjectiveAI Query requests may use beyond every face's (`SPEC.reply`)."""

from __future__ import annotations

from pydantic import Field

from zenmux_emulator.scenario.query import QueryScript
from zenmux_emulator.scenario.schema import ReplyKeys


class QueryReply(ReplyKeys):
    """`query`: what each LLM of the Query Model says (spec §5)."""

    query: QueryScript | None = Field(None, description="what each LLM of the Query Model says")
