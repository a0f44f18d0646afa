"""One request on its way through the endpoint, as one value: the `Exchange`.

The middleware opens the journal entry; `Endpoint.answer` makes the exchange once the caller is
known and fills it in step by step (the request as the face parsed it, the terms it was admitted
on, the route, the chosen rule, the draft, the reply's id, time and headers), so a step is handed
the exchange and the parts it reads rather than a list of them. A face reads it in `render`
(`Face.render(draft, exchange)`) and in `parse` through its `FaceContext`, which also carries
what its `preload` fetched: no face keeps a request's data on itself.

Only the endpoint and the middleware write the journal entry (`Exchange.entry`); what the recorder
found out about a forwarded request comes back as `Forwarded`, which the endpoint writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from aiohttp import web
from yarl import URL

from zenmux_emulator.core.draft.draft import Draft
from zenmux_emulator.core.gateway.control_headers import ControlHeaders
from zenmux_emulator.core.gateway.routing import Route
from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.match.select import Selection
from zenmux_emulator.core.neutral.request import NeutralRequest
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.foundation.failures import Failure
from zenmux_emulator.foundation.misbehaviours import Ask
from zenmux_emulator.scenario.schema import ModelSpec
from zenmux_emulator.state.sessions import Session

R = TypeVar("R", bound=NeutralRequest)


@dataclass(slots=True)
class FaceContext:
    """One request as its face sees it besides the body."""

    session: str
    """The caller's session (the key was checked before the face is called)."""
    headers: Mapping[str, str]
    """The request's headers."""
    params: Mapping[str, str]
    """The route's URL parameters (`{model}` in a path, say)."""
    url: URL
    """The request's URL, relative to the server (path and query)."""
    rule: str | None = None
    """The rule that answers, once matched (None: no rule did)."""
    warnings: list[str] = field(default_factory=list)
    """Warnings the face finds while rendering: the journal entry gets them."""
    body_bytes: int | None = None
    """The body's size in bytes as it arrived (inflated), once read (None: not known). A JSON array
    of n items takes at least 2n + 1 bytes, so a face's caps on items (`faces/common/counts.py`)
    need no count for a body too small to pass them."""
    probe: bool = False
    """A probe of `POST /_emulator/match` (would this request match?): it changes nothing, so a
    face must not use anything up for it (a thread message's one `continue`)."""
    preloaded: object = None
    """What the face worked out for its (synchronous) `parse` ahead of it: what its `preload` fetched
    from the state (a stored response, a thread's whole request), or the request its parse made in a
    thread (`foundation.offload`) for the parse that runs again. This request's: never kept on the face."""

    @property
    def query(self) -> Mapping[str, str]:
        """The URL's query, parsed when a face first reads it (the URL keeps it): most faces never do."""
        return self.url.query


@dataclass(slots=True)
class Terms:
    """The terms the state admitted a request on: its session, rate headers, scenarios in force,
    control headers, its number in the session (which its ids and chaos draw are made from; the
    state takes it atomically on admission, so requests in flight never share one), the
    catalogue's entry of the model it asked for, and the failures its own fault and chaos strike
    it with (most requests: none)."""

    session: Session
    gate: dict[str, str]
    scenarios: ScenarioSet
    control: ControlHeaders
    asked: Ask | None
    number: int
    window: ModelSpec | None
    failures: tuple[Failure, ...]
    states: Mapping[str, str]
    """Where each scenario stands for this request (read only when the rules name scenarios)."""
    scale: float
    """What the request's waits are multiplied by: its header's time scale, the server's, the scenarios', else 1."""
    standing: Ask | None = None
    """The fault the session asked for through the control API (`POST /_emulator/misbehave`)."""


@dataclass(slots=True)
class Routing:
    """The route a request took: its attempts, the model that served and that model's catalogue entry."""

    routed: Route
    model: str
    listed: ModelSpec | None


@dataclass(slots=True, eq=False)
class Exchange(Generic[R]):
    """One request through the endpoint. Made when the caller is known; each later part is set by
    the step that makes it and read only after (reading one before its step is an AttributeError,
    not a None to check): `ask` by parse, `terms` by admit, `routing` by route, `selection` by
    match, `draft` by draft, `generation`, `created` and `headers` by dress.

    A face's `render` reads `ask`, `ctx`, `generation`, `created`, `headers` (the reply's, which
    it may add to) and `seed`, and writes only `ctx.warnings`; the journal entry is the endpoint's.
    Once the reply is rendered the endpoint drops `ask` and `draft` (a held stream keeps only what
    its events need), so a stream's events read what `render` gave them, never the exchange."""

    request: web.Request
    """The HTTP request as aiohttp read it (its body is read by the endpoint, not from here)."""
    entry: JournalEntry
    """The request's journal entry, opened by the middleware: only the endpoint writes it."""
    key: str
    """The caller: the API key they authenticated with."""
    ctx: FaceContext
    """The request as its face sees it besides the body: session, headers, URL, rule, warnings."""
    seed: int
    """The server's seed, which every id and drawn value of the reply is made from."""
    ask: R = field(init=False, repr=False)
    """The request as its face parsed it."""
    terms: Terms = field(init=False, repr=False)
    """The terms it was admitted on."""
    routing: Routing = field(init=False, repr=False)
    """The route it took and the model that serves it."""
    selection: Selection | None = field(init=False, repr=False)
    """The rule (and reply) chosen; None: no rule answers (the default reply)."""
    draft: Draft = field(init=False, repr=False)
    """The reply, face-neutral."""
    generation: str = field(init=False, repr=False)
    """The reply's generation id."""
    created: int = field(init=False, repr=False)
    """When the reply is made, in whole seconds on the emulator's clock (the body's `created`)."""
    headers: dict[str, str] = field(init=False, repr=False)
    """The reply's headers: the emulator's, the rate limits', the route's."""


@dataclass(slots=True)
class Forwarded:
    """What answered a request no rule matched, forwarded to the upstream (`--record-missing`), and
    what the journal entry says of it: the endpoint writes these, the recorder only finds them."""

    response: web.StreamResponse | None
    """What the client gets (None: nothing; `failure` says why)."""
    sent: bytes | list[bytes] | None = None
    """The body, or the stream's events, passed back."""
    events_sent: int | None = None
    client_gone: bool = False
    fault: str | None = None
    warnings: tuple[str, ...] = ()
    rule: str | None = None
    """The rule the exchange was recorded as (None: not recorded)."""
    failure: BaseException | None = None
    """Raised once the entry is written: the client left, the stream was cut, the upstream was unreachable."""
