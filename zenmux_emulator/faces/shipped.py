"""The faces this package ships, each its folder's one `FaceSpec`: the one list of them.

`create_app` registers these by default (`server.app.FACES`), and everything that needs to know the
shipped faces without an app derives them from here: the `api` names `zenmux-emulator validate`
accepts (`NAMES`), the verdict's readers for a journal read offline (`READERS`).
"""

from __future__ import annotations

from collections.abc import Mapping

from zenmux_emulator.core.journal.verdict import Shapes
from zenmux_emulator.core.spec import FaceSpec, face_names, readers_of
from zenmux_emulator.faces.anthropic.routes import SPEC as ANTHROPIC
from zenmux_emulator.faces.chat.routes import SPEC as CHAT
from zenmux_emulator.faces.embeddings.routes import SPEC as EMBEDDINGS
from zenmux_emulator.faces.imagen.routes import SPEC as IMAGEN
from zenmux_emulator.faces.images.routes import SPEC as IMAGES
from zenmux_emulator.faces.objectiveai.routes import SPEC as OBJECTIVEAI
from zenmux_emulator.faces.platform.routes import SPEC as PLATFORM
from zenmux_emulator.faces.rerank.routes import SPEC as RERANK
from zenmux_emulator.faces.responses.routes import SPEC as RESPONSES
from zenmux_emulator.faces.speech.routes import SPEC as SPEECH
from zenmux_emulator.faces.transcription.routes import SPEC as TRANSCRIPTION
from zenmux_emulator.faces.vertex.routes import SPEC as VERTEX
from zenmux_emulator.faces.videos.routes import SPEC as VIDEOS
from zenmux_emulator.scenario.faces import FaceNames

FACES: tuple[FaceSpec, ...] = (
    CHAT,
    ANTHROPIC,
    RESPONSES,
    OBJECTIVEAI,
    VERTEX,
    EMBEDDINGS,
    RERANK,
    PLATFORM,
    IMAGES,
    SPEECH,
    TRANSCRIPTION,
    VIDEOS,
    IMAGEN,
)
"""The wire APIs this emulator speaks, in registration order."""
NAMES: FaceNames = face_names(FACES)
"""The `api` names (and traits) scenario files may give, for what reads them without an app."""
READERS: Mapping[str, Shapes] = readers_of(FACES)
"""The client verdict's readers, for a journal read without an app."""
