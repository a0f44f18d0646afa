"""A whole set of scenario files as the request path uses it: rules, catalogue, keys, limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from zenmux_emulator.core.gateway.limits import GatewayConfig
from zenmux_emulator.core.match.rule import CompiledRule
from zenmux_emulator.foundation.errors import ScenarioProblem
from zenmux_emulator.foundation.signatures import NOTHING_RECORDED, RecordedReasoning
from zenmux_emulator.scenario.query_model import QueryModel
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.state.scenario_states import SERVER_WIDE


@dataclass(frozen=True, slots=True)
class ScenarioSet:
    """An immutable, fully compiled set of scenario files; swapped whole on reload."""

    rules: tuple[CompiledRule, ...] = ()
    models: dict[str, ModelSpec] = field(default_factory=dict)
    catalogue_closed: bool = False
    """Model ids outside `catalogue` are refused (every mode but `catalogue: open`)."""
    catalogue: dict[str, ModelSpec] = field(default_factory=dict)
    """The models served: the declared ones over the built-in ones, or only the declared when closed."""
    api_keys: frozenset[str] = frozenset()
    files: tuple[str, ...] = ()
    gateway: GatewayConfig = field(default_factory=GatewayConfig)
    """Rate limits and balances from the files' settings."""
    query_models: tuple[QueryModel, ...] = ()
    """The files' stored ObjectiveAI Query Models (`query_models:`), in file order."""
    recorded: RecordedReasoning = NOTHING_RECORDED
    """The upstream signatures and encrypted reasoning the replies carry: accepted when passed back."""
    warnings: tuple[ScenarioProblem, ...] = ()
    """What loads but is likely a mistake: a rule no request can reach, an error type ZenMux never sends."""
    catalogue_mode: str = "zenmux"
    """`zenmux` (ZenMux's models and the declared ones), `open` (any id) or `closed` (only the declared)."""
    unlisted: frozenset[str] = frozenset()
    """Models of `catalogue` the model listings leave out: the faces' own (embedding, rerank)."""
    server_wide: frozenset[str] = frozenset()
    """Scenarios whose state every session shares (`settings.server_wide_scenarios`)."""

    by_name: dict[str, CompiledRule] = field(init=False, repr=False, compare=False)
    """The rules by name (names are unique in a set), for `X-Emulator-Rule` and the control API."""

    chaotic: bool = field(init=False, repr=False, compare=False)
    """Some rule has chaos of its own (worked out once: most sets have none)."""

    scenario_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The scenarios (state machines) the rules name, sorted (most sets have none)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "scenario_names", tuple(sorted({r.scenario for r in self.rules if r.scenario})))
        object.__setattr__(self, "by_name", {r.name: r for r in self.rules})
        object.__setattr__(self, "chaotic", any(r.rule.chaos is not None for r in self.rules))

    def listing(self) -> dict[str, ModelSpec]:
        """The models `GET /models` lists: the catalogue but the faces' own."""
        if not self.unlisted:
            return self.catalogue
        return {model_id: spec for model_id, spec in self.catalogue.items() if model_id not in self.unlisted}

    def rule(self, name: str) -> CompiledRule | None:
        return self.by_name.get(name)

    def owner(self, scenario: str, session: str) -> str:
        """Whose state a scenario's is: the session's, or the server's (`SERVER_WIDE`)."""
        return SERVER_WIDE if scenario in self.server_wide else session
