"""A face's one registration: what the app, the generation lookup, the client verdict and the
pytest plugin need to know of a wire API, in one value its folder exports.

`create_app(settings, faces=...)` registers a list of them (`faces/shipped.py` `FACES` by default);
the routes, the `api` of a generation record, the verdict's readers, the recorder's decoders and
the upstream paths it drops, the index and 404 hints, and the plugin's base URLs are read from
that list, and so are the `api` names scenario files may give (`scenario/faces.py`) and the reply
keys their rules may use (`reply`, `scenario/language.py`), so a new face is its folder and one more
entry in it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.journal.verdict import Shapes
from zenmux_emulator.core.neutral.recorded import Decoder
from zenmux_emulator.scenario.faces import ZENMUX_FACE, FaceNames, FaceTraits
from zenmux_emulator.scenario.language import owners
from zenmux_emulator.scenario.schema import ModelSpec, ReplyKeys

ErrorBody = Callable[[int, str, str], bytes]
"""An error envelope as bytes, from the HTTP status, the error type and the message."""

ClientMaker = Callable[..., Any]
"""Its SDK's client, made by the pytest plugin's `zenmux.client(name, **options)`: called with the
keyword arguments `base_url` (the face's), `api_key` (the test's) and the caller's options."""

Routes = Callable[[Core], list[web.RouteDef]]
"""A face's routes for one app: its POST route (an `Endpoint` over its `Face`) and any beside it
(side routes such as `count_tokens`, stored objects, model catalogues)."""


@dataclass(frozen=True, slots=True)
class Signpost:
    """How the index (`GET /`) shows a face, and which route prefixes a 404 hint counts as its own."""

    title: str
    prefixes: tuple[str, ...] = ()
    """Route prefixes that are its own (empty: everything under its base path)."""
    beyond: tuple[tuple[str, str], ...] = ()
    """Paths of its API it does not serve, by prefix (or by a pattern, when it starts with `^`), with what
    they are (the 404 says "<path> is <what>, which this emulator does not serve"); the first that fits."""


@dataclass(frozen=True, slots=True)
class FaceSpec:
    """One wire API as the emulator registers it."""

    name: str
    """The face's name: the journal entry's `api`, the `api:` a rule matches, its `Face.name`."""
    api_name: str
    """The `api` its generation records report (`chat.completions`, `messages`, …)."""
    base_path: str
    """The path its clients' base URL ends in (`/api/v1`): the pytest plugin's `url(name)`."""
    routes: Routes
    readers: Shapes | None = None
    """How its journal bodies carry tool calls and their answers, for the client verdict
    (`core/journal/verdict.py`); None: the verdict reads no tool calls on it."""
    decoder: Decoder | None = None
    """How the recorder reads its answers into a scenario reply (`core/neutral/recorded.py`); None: its
    recorded exchanges are kept as raw replies (`raw:`), replayed byte for byte on it alone."""
    client: ClientMaker | None = None
    """The pytest plugin's client of it (`zenmux.client(name)`); None: the plugin has none for it."""
    signpost: Signpost | None = None
    """Its entry in the index and the 404 hints; None: listed under its name, with its base path."""
    traits: FaceTraits = ZENMUX_FACE
    """What rules need to know of it: whether `api: zenmux` names it, whether rules without `api`
    answer it."""
    misbehaves: bool = True
    """Whether its render shows the misbehaviour catalogue's faults (`Draft.misbehaved`); a face that
    answers from its own script instead of the draft says False, and a fault asked of it is warned of."""
    models: Mapping[str, ModelSpec] = field(default_factory=dict)
    """Models it serves that the packaged catalogue (chat models) lacks: admitted and priced like
    the catalogue's, not listed by `GET /models` (ZenMux lists its chat models there)."""
    shares_models_of: tuple[str, ...] = ()
    """Other faces whose own `models` it answers too (Imagen's `:predict` answers the images face's
    GPT image models, as ZenMux's does); any other face refuses them as another API's."""
    error_body: ErrorBody | None = None
    """Its error envelope for the router's own 404 and 405 under its base path (a path or method no route
    serves); None: ZenMux's envelope, which every face but ObjectiveAI answers with."""
    reply: type[ReplyKeys] | None = None
    """The keys its rules' replies may use beyond those every face reads (`scenario.schema.Reply`): a
    `ReplyKeys` model of optional fields, added to the scenario language where the face is registered
    (`scenario/language.py`) and read back with `isinstance(draft.spec, ItsKeys)`; None: none."""


REGISTERED: web.AppKey[tuple[FaceSpec, ...]] = web.AppKey("faces")
"""The faces `create_app` registered, in order."""


def envelope_for(faces: Iterable[FaceSpec], path: str) -> ErrorBody | None:
    """The error envelope of the face with the longest base path the path falls under, if it has its own."""
    under = [face for face in faces if path == face.base_path or path.startswith(face.base_path.rstrip("/") + "/")]
    if not under:
        return None
    return max(under, key=lambda face: len(face.base_path)).error_body


def api_names(faces: Iterable[FaceSpec]) -> dict[str, str]:
    """Each face's generation `api`, by its name."""
    return {face.name: face.api_name for face in faces}


def face_names(faces: Iterable[FaceSpec], catalogue: Any = None) -> FaceNames:
    """The faces the app's scenario files may name, with their traits (and the catalogue served,
    when it is not the packaged one)."""
    listed = tuple(faces)
    models = {model_id: spec for face in listed for model_id, spec in face.models.items()}
    replies = tuple((face.name, face.reply) for face in listed if face.reply is not None and face.traits.scripted)
    owners(replies)  # refused at registration: a key two faces claim, or one every reply has
    return FaceNames({face.name: face.traits for face in listed if face.traits.scripted}, models, catalogue, replies)


def model_faces(faces: Iterable[FaceSpec]) -> dict[str, tuple[str, ...]]:
    """The faces that answer each face's own model: its face first, then those that share it."""
    listed = tuple(faces)
    answering: dict[str, tuple[str, ...]] = {model: (face.name,) for face in listed for model in face.models}
    owners = {face.name: face for face in listed}
    for face in listed:
        for other in face.shares_models_of:
            shared = owners[other].models if other in owners else {}
            for model in shared:
                answering[model] += (face.name,)
    return answering


def unfaulted(faces: Iterable[FaceSpec]) -> frozenset[str]:
    """The faces whose replies the misbehaviour catalogue does not reach."""
    return frozenset(face.name for face in faces if not face.misbehaves)


def readers_of(faces: Iterable[FaceSpec]) -> Mapping[str, Shapes]:
    """The verdict's readers of every face that has them, by its name."""
    return {face.name: face.readers for face in faces if face.readers is not None}


def decoders_of(faces: Iterable[FaceSpec]) -> Mapping[str, Decoder]:
    """The recorder's decoder of every face that has one, by its name."""
    return {face.name: face.decoder for face in faces if face.decoder is not None}


def base_paths(faces: Iterable[FaceSpec]) -> tuple[str, ...]:
    """Every face's base path, once each, in registration order."""
    return tuple(dict.fromkeys(face.base_path for face in faces))


def checked(faces: Iterable[FaceSpec]) -> tuple[FaceSpec, ...]:
    """The faces, refusing two of one name (the journal and the rules tell faces apart by it)."""
    listed = tuple(faces)
    names = [face.name for face in listed]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"faces registered twice: {', '.join(twice)}")
    return listed
