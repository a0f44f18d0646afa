"""`zenmux`, the object a test gets: its own API key and session on the emulator, clients pointed
at it, scenarios loaded for the test alone, its journal, and checks on the rules it loaded."""

from __future__ import annotations

import hashlib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import yaml

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.verdict import Finding, verdict
from zenmux_emulator.core.rules.registry import API_PREFIX
from zenmux_emulator.core.spec import readers_of
from zenmux_emulator.pytest_plugin.control import Control, ControlError
from zenmux_emulator.pytest_plugin.report import UnusedRule, misbehaved_label, unused_rules_message
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.state.sessions import session_name

if TYPE_CHECKING:
    import anthropic
    import openai
    from google import genai


def key_for(nodeid: str) -> str:
    """The API key of a test: stable for its node id, distinct between tests."""
    return "sk-zenmux-test-" + hashlib.sha256(nodeid.encode("utf-8")).hexdigest()[:16]


def scenario_stem(nodeid: str) -> str:
    """A control-API scenario name for the test: its name, cut to fit, plus a digest of the node id."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", nodeid.rsplit("::", 1)[-1]).strip("-._")[:40] or "test"
    return f"{name}-{hashlib.sha256(nodeid.encode('utf-8')).hexdigest()[:8]}"


@dataclass(slots=True)
class LoadedScenario:
    """A scenario this test loaded: its control-API name, rule names and where its text came from."""

    name: str
    rules: list[str]
    origin: str
    """A file path, `add_rule at file:line`, or `load at file:line` for YAML text."""
    is_file: bool = False

    def where(self, listed: dict[str, Any]) -> str:
        """The rule's place as the test's author wrote it: `file:line` of a scenario file, the `add_rule` call, or
        the `load` call and the line of its YAML text."""
        line = listed.get("line")
        if self.is_file and line:
            return f"{self.origin}:{line}"
        if self.origin.startswith("load at ") and line:
            return f"{self.origin}, line {line} of its YAML"
        if self.origin:
            return self.origin
        return str(listed.get("where", API_PREFIX + self.name))


@dataclass(repr=False)
class ZenmuxHandle:
    """Everything a test does with the emulator, scoped to its own session."""

    server: EmulatorServer
    nodeid: str
    dedicated: bool = False
    api_key: str = ""
    loaded: list[LoadedScenario] = field(default_factory=list)
    _clients: list[Any] = field(default_factory=list)
    _clock_before: dict[str, Any] | None = None
    _misbehaving: bool = False

    def __post_init__(self) -> None:
        self.api_key = self.api_key or key_for(self.nodeid)
        self.control = Control(self.server.origin)
        self._stem = scenario_stem(self.nodeid)

    def __repr__(self) -> str:  # what a traceback shows of the `zenmux` argument
        return f"<zenmux handle: session {self.session} on {self.base_url}>"

    # where and who
    def url(self, face: str) -> str:
        """A registered face's base URL (`FaceSpec.base_path`), e.g. `url("chat")` is `base_url`."""
        return self.server.url(face)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def anthropic_url(self) -> str:
        """The Anthropic face's base URL (`…/api/anthropic`), as `ANTHROPIC_BASE_URL` takes it."""
        return self.server.anthropic_url

    @property
    def objectiveai_url(self) -> str:
        """The ObjectiveAI Query Completions face: `POST {objectiveai_url}/query/completions`."""
        return self.server.objectiveai_url

    objectiveai_base_url = objectiveai_url

    @property
    def session(self) -> str:
        """The emulator session of this test's key (sequence positions, hits and journal are kept per session)."""
        return session_name({}, self.api_key)

    # clients
    def client(self, face: str, **options: Any) -> Any:
        """A registered face's own client (`FaceSpec.client`) pointed at it with this test's key, closed
        at teardown; `options` go to the client (a `base_url` or `api_key` given replaces the face's)."""
        maker = self.server.faces[face].client
        if maker is None:
            raise LookupError(f"the {face} face registers no client (FaceSpec.client)")
        made = maker(**{"base_url": self.url(face), "api_key": self.api_key, **options})
        if callable(getattr(made, "close", None)):
            self._clients.append(made)
        return made

    def openai_client(self, **kwargs: Any) -> openai.OpenAI:
        """`openai.OpenAI` pointed at the emulator with this test's key; `max_retries` 0 unless given."""
        client: openai.OpenAI = self.client("chat", **kwargs)
        return client

    def async_openai_client(self, **kwargs: Any) -> openai.AsyncOpenAI:
        """`openai.AsyncOpenAI` likewise (close it yourself, or let it be collected)."""
        import openai

        return openai.AsyncOpenAI(**self._client_options(kwargs))

    def responses_client(self, **kwargs: Any) -> openai.OpenAI:
        """The client of the Responses face (`client.responses.create(...)`, Codex's and the Agents SDK's API):
        `openai.OpenAI` on the same base URL as chat, so the same as `openai_client`, named for what it calls."""
        return self.openai_client(**kwargs)

    def async_responses_client(self, **kwargs: Any) -> openai.AsyncOpenAI:
        """`openai.AsyncOpenAI` for the Responses face likewise."""
        return self.async_openai_client(**kwargs)

    def anthropic_client(self, **kwargs: Any) -> anthropic.Anthropic:
        """`anthropic.Anthropic` pointed at the Anthropic Messages face with this test's key and `max_retries` 0
        unless given; the SDK's own `anthropic-version`, as users send it (the face takes every dated version)."""
        client: anthropic.Anthropic = self.client("anthropic", **kwargs)
        return client

    def async_anthropic_client(self, **kwargs: Any) -> anthropic.AsyncAnthropic:
        """`anthropic.AsyncAnthropic` likewise (close it yourself, or let it be collected)."""
        import anthropic

        return anthropic.AsyncAnthropic(**self._anthropic_options(kwargs))

    def _anthropic_options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {"base_url": self.anthropic_url, "api_key": self.api_key, "max_retries": 0, **kwargs}

    def gemini_client(self, *, vertexai: bool = True, **kwargs: Any) -> genai.Client:
        """`google.genai.Client` pointed at the Vertex AI / Gemini face with this test's key: `vertexai=True`
        calls the `v1/publishers/…` paths, `vertexai=False` the Gemini API's `v1beta/models/…` ones."""
        client: genai.Client = self.client("vertex", vertexai=vertexai, **kwargs)
        return client

    def objectiveai_client(self, **kwargs: Any) -> openai.OpenAI:
        """`openai.OpenAI` pointed at the ObjectiveAI face with this test's key, for
        `client.post("/query/completions", body=..., cast_to=object)`; `max_retries` 0 unless given."""
        client: openai.OpenAI = self.client("objectiveai", **kwargs)
        return client

    def _client_options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return {"base_url": self.base_url, "api_key": self.api_key, "max_retries": 0, **kwargs}

    # scenarios
    def load(self, path_or_yaml: str | Path) -> list[str]:
        """Load a YAML file (a path) or YAML text for this test; removed at teardown. The rule names."""
        path = _as_path(path_or_yaml)
        if path is not None:
            return self._load(path.read_text(encoding="utf-8"), _shown(path), is_file=True)
        caller = inspect.stack()[1]
        return self._load(str(path_or_yaml), f"load at {caller.filename}:{caller.lineno}", is_file=False)

    def add_rule(
        self,
        name: str,
        *,
        match: dict[str, Any] | None = None,
        reply: dict[str, Any] | None = None,
        replies: list[dict[str, Any]] | None = None,
        then: str | None = None,
        priority: int | None = None,
        expect: dict[str, Any] | None = None,
    ) -> str:
        """Load a one-rule scenario for this test; the rule's name."""
        if (reply is None) == (replies is None):
            raise TypeError("add_rule needs exactly one of reply= or replies=")
        rule: dict[str, Any] = {"name": name, "match": match or {}}
        rule.update(
            {
                k: v
                for k, v in (
                    ("expect", expect),
                    ("reply", reply),
                    ("replies", replies),
                    ("then", then),
                    ("priority", priority),
                )
                if v is not None
            }
        )
        caller = inspect.stack()[1]
        self._load(
            yaml.safe_dump({"rules": [rule]}, allow_unicode=True, sort_keys=False),
            f"add_rule at {caller.filename}:{caller.lineno}",
            is_file=False,
        )
        return name

    def _load(self, text: str, origin: str, *, is_file: bool) -> list[str]:
        name = f"{self._stem}-{len(self.loaded) + 1}"
        try:
            answer = self.control.call("POST", "/scenarios", yaml_text=text, name=name)
        except ControlError as exc:
            raise ValueError(f"zenmux: {origin or 'YAML text'} was not loaded: {exc}") from None
        self.loaded.append(LoadedScenario(name, list(answer["rules"]), origin, is_file))
        return list(answer["rules"])

    def unload_all(self) -> None:
        """Remove every scenario this test loaded (teardown)."""
        while self.loaded:
            scenario = self.loaded.pop()
            try:
                self.control.call("DELETE", f"/scenarios/{scenario.name}")
            except ControlError as exc:
                if exc.type != "unknown_scenario":
                    raise

    # misbehaviour
    def misbehave(self, fault: str | None, variant: str | None = None, *, rate: float = 1.0) -> None:
        """Give this test's requests a fault of the misbehaviour catalogue (`GET /_emulator/misbehave`
        lists them): every request, or a seeded share `rate` of them; `None` stops. Undone at teardown."""
        try:
            self.control.call(
                "POST",
                "/misbehave",
                json_body={"session": self.session, "fault": fault, "variant": variant, "rate": rate},
            )
        except ControlError as exc:
            raise ValueError(f"zenmux: misbehave({fault!r}, {variant!r}) was refused: {exc}") from None
        self._misbehaving = fault is not None

    def stop_misbehaving(self) -> None:
        """Stop the fault `misbehave` (or the marker) asked for (teardown)."""
        if self._misbehaving:
            self.misbehave(None)

    def misbehaved(self) -> list[str]:
        """The faults this test's replies were made wrong with, in order (`NAME;variant`, or `NAME`)."""
        return [misbehaved_label(entry) for entry in self.requests if entry.misbehaved is not None]

    # journal
    @property
    def requests(self) -> list[JournalEntry]:
        """This test's journal entries, oldest first (attributes: body, headers, status, rule, …)."""
        return self.server.state.journal.entries(session=self.session)

    def unmatched(self) -> list[JournalEntry]:
        """This test's chat requests that no rule answered; each carries `near_misses`."""
        return [entry for entry in self.requests if entry.unmatched]

    def clear(self) -> None:
        """Forget this test's journal entries and restart its reply sequences."""
        self.control.call("DELETE", "/journal", session=self.session)
        try:
            self.control.call("POST", "/sessions/reset", json_body={"session": self.session})
        except ControlError as exc:
            if exc.type != "unknown_session":
                raise

    # clock
    def advance_clock(self, seconds: float) -> float:
        """Move the emulator's clock on (a running clock freezes at now + seconds); the new time."""
        self._remember_clock()
        return float(self.control.call("POST", "/clock", json_body={"advance": seconds})["now"])

    def freeze_clock(self, at: float | str) -> float:
        """Freeze the clock at unix seconds or an ISO 8601 time; the new time."""
        self._remember_clock()
        return float(self.control.call("POST", "/clock", json_body={"freeze_at": at})["now"])

    def _remember_clock(self) -> None:
        if self._clock_before is None:
            self._clock_before = self.control.call("GET", "/clock")

    def restore_clock(self) -> None:
        """Put a shared server's clock back as the test found it (teardown)."""
        before, self._clock_before = self._clock_before, None
        if before is not None:
            body = {"freeze_at": before["now"]} if before["frozen"] else {"unfreeze": True}
            self.control.call("POST", "/clock", json_body=body)

    # scenario states
    def state(self, scenario: str) -> str:
        """Where this test's session stands in `scenario` (`started` until a rule's `set_state` or
        `set_state` here moves it; a server-wide scenario's state is every session's)."""
        listed = self._states()
        if scenario not in listed:
            raise ValueError(f"zenmux: no rule names scenario {scenario!r} (scenarios: {', '.join(listed) or 'none'})")
        owner = "*" if listed[scenario]["server_wide"] else self.session
        standing = listed[scenario]["sessions"].get(owner)
        return "started" if standing is None else str(standing["state"])

    def set_state(self, scenario: str, state: str) -> None:
        """Jump this test's session into `state` of `scenario` (PUT /_emulator/states/{scenario})."""
        try:
            self.control.call(
                "PUT", f"/states/{quote(scenario, safe='')}", json_body={"state": state, "session": self.session}
            )
        except ControlError as exc:
            raise ValueError(f"zenmux: set_state({scenario!r}, {state!r}) was refused: {exc}") from None

    def _states(self) -> dict[str, Any]:
        return dict(self.control.call("GET", "/states", session=self.session)["scenarios"])

    def scenarios_moved(self) -> dict[str, bool]:
        """Every scenario in force, and whether a rule moved it out of `started` for this test."""
        moved = {
            entry.scenario
            for entry in self.requests
            if entry.scenario is not None and (entry.state_before, entry.state_after) != ("started", "started")
        }
        return {name: name in moved for name in self._states()}

    # rules
    def listed_rules(self) -> list[dict[str, Any]]:
        """Every rule in force as `GET /_emulator/scenarios` lists it, `hits.session` for this test."""
        try:
            return list(self.control.call("GET", "/scenarios", session=self.session)["rules"])
        except ControlError as exc:
            if exc.type != "unknown_session":
                raise
        rules = list(self.control.call("GET", "/scenarios")["rules"])
        for rule in rules:  # no request yet: nothing answered this session
            rule["hits"]["session"] = 0
        return rules

    def rule_hits(self, listed: list[dict[str, Any]] | None = None) -> list[tuple[UnusedRule, int]]:
        """Every rule this test loaded with how often it answered this session."""
        by_source = {API_PREFIX + s.name: s for s in self.loaded}
        found = []
        for rule in self.listed_rules() if listed is None else listed:
            scenario = by_source.get(rule["source"])
            if scenario is not None:
                found.append((UnusedRule(rule["name"], scenario.where(rule)), int(rule["hits"].get("session", 0))))
        return found

    def locate(self, where: str) -> str:
        """`api:<scenario>:<line>` of a scenario this test loaded, as its file:line or add_rule call."""
        prefix, _, rest = where.partition(":")
        name, _, line = rest.rpartition(":")
        scenario = next((s for s in self.loaded if s.name == name), None) if prefix + ":" == API_PREFIX else None
        if scenario is None:
            return where
        return scenario.where({"line": int(line) if line.isdigit() else None, "where": where})

    def unused_rules(self, listed: list[dict[str, Any]] | None = None) -> list[UnusedRule]:
        return [rule for rule, hits in self.rule_hits(listed) if hits == 0]

    def assert_all_rules_used(self) -> None:
        """Fail, listing each with file:line, if a rule this test loaded never answered this test."""
        __tracebackhide__ = True  # the failure is the test's, not the plugin's: pytest shows the test's line
        unused = self.unused_rules()
        if unused:
            raise AssertionError(unused_rules_message(unused))

    # client checks
    def unmet_expectations(self) -> list[str]:
        """Every `expect` of a rule that one of this test's requests did not meet."""
        return [unmet for entry in self.requests for unmet in entry.unmet_expectations]

    def verdict(self) -> list[Finding]:
        """What this test's client did wrong, read from its journal (see `emulator.journal.verdict`)."""
        return verdict(self.requests, readers_of(self.server.faces.values()))

    def assert_client_well_behaved(self) -> None:
        """Fail with every finding of `verdict()`, on every face: reasoning not echoed, tool calls
        unanswered, Retry-After not respected, a non-retryable error retried, expectations unmet."""
        __tracebackhide__ = True
        findings = self.verdict()
        if findings:
            raise AssertionError("the client misbehaved:\n" + "\n".join(f"  {f}" for f in findings))

    def close_clients(self) -> None:
        for client in self._clients:
            client.close()
        self._clients.clear()


def _as_path(value: str | Path) -> Path | None:
    """A Path, or a one-line string naming an existing file or ending in .yaml/.yml, is a file."""
    if isinstance(value, Path):
        return value
    if "\n" in value or (":" in value and not Path(value).exists()):
        return None
    if value.endswith((".yaml", ".yml")) or Path(value).is_file():
        return Path(value)
    return None


def _shown(path: Path) -> str:
    """A scenario file as a report names it: relative to the folder pytest runs in when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
