"""ZenMux's extensions: provider routing and fallback, model routing, reasoning, usage, web search."""

from typing import Annotated, Any, Literal

from zenmux_emulator.faces.common.validation import StrictModel, at_least
from zenmux_emulator.foundation.errors import invalid_params

ROUTING_TYPES = frozenset({"priority", "round_robin", "least_latency", "order"})
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
Effort = str
"""A reasoning effort: one of EFFORTS, or a newer value the upstream may accept (kept, with a warning)."""


def effort_warnings(known: tuple[str, ...], **sent: str | None) -> tuple[str, ...]:
    """A warning for each effort value the emulator does not know (a newer SDK's): it is accepted,
    and the reply reasons as for `medium`."""
    return tuple(
        f"{name.replace('__', '.')} {value!r}: not an effort the emulator knows; reasoning as for 'medium'"
        for name, value in sent.items()
        if value is not None and value not in known
    )


class ProviderRouting(StrictModel):
    """`provider.routing`: how providers are chosen."""

    type: Literal["priority", "round_robin", "least_latency", "order"]
    primary_factor: Literal["cost", "speed", "quality", "latency", "price", "throughput"] | None = None
    providers: list[str] | None = None


class ProviderOptions(StrictModel):
    """`provider`: routing policy and the fallback (`"true"`, `"false"`, a provider or a model slug)."""

    routing: ProviderRouting | None = None
    fallback: str | None = None


class TaskInfo(StrictModel):
    """`model_routing_config.task_info`."""

    task_type: str
    complexity: str | None = None
    additional_properties: dict[str, Any] | None = None


class ModelRoutingConfig(StrictModel):
    """`model_routing_config` for `zenmux/auto`: candidate models and preference."""

    available_models: list[str] | None = None
    preference: str | None = None
    task_info: TaskInfo | None = None
    additional_properties: dict[str, Any] | None = None


class ReasoningOptions(StrictModel):
    """`reasoning`: enable, effort, token budget, and whether to hide the reasoning text."""

    enabled: bool | None = None
    effort: Effort | None = None
    max_tokens: Annotated[int, at_least(0, "an integer")] | None = None
    exclude: bool | None = None


class UsageOptions(StrictModel):
    """`usage`: ZenMux's alternative to `stream_options.include_usage`."""

    include: bool


class Location(StrictModel):
    """Approximate user location for web search."""

    city: str | None = None
    country: str | None = None
    region: str | None = None
    timezone: str | None = None


class UserLocation(Location):
    """`web_search_options.user_location`; the location may be flat or under `approximate`."""

    type: Literal["approximate"]
    approximate: Location | None = None

    def location(self) -> Location:
        """The location, whichever way it was sent (keys under `approximate` win)."""
        flat = self.model_dump(include={"city", "country", "region", "timezone"}, exclude_none=True)
        if self.approximate is not None:
            flat.update(self.approximate.model_dump(exclude_none=True))
        return Location.model_validate(flat)


class WebSearchOptions(StrictModel):
    """`web_search_options`; an empty object turns web search on."""

    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: UserLocation | None = None


def check_provider_routing(body: dict[str, Any]) -> None:
    """ZenMux's own 400s for `provider.routing`, before the models validate it."""
    provider = body.get("provider")
    routing = provider.get("routing") if isinstance(provider, dict) else None
    if not isinstance(routing, dict):
        return
    kind = routing.get("type")
    if not isinstance(kind, str) or kind not in ROUTING_TYPES:
        raise invalid_params("Parameter type of provider.routing is not valid")
    providers = routing.get("providers")
    if providers == [] or (kind == "order" and providers is None):
        raise invalid_params("Parameter providers of provider.routing is not valid")
