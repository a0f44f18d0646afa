"""The faces this package ships, each its folder's one `FaceSpec` (its `spec.py`): the one list of them.

Importing a face's `spec.py` imports what start-up needs of it (its paths, models, reply keys and
the journal's readers); its handlers are imported on its first request (`core/deferred.py`), the
chat face's at start-up.

`create_app` registers these by default (`server.app.FACES`), and everything that needs to know the
shipped faces without an app derives them from here: the `api` names `zenmux-emulator validate`
accepts (`NAMES`), the verdict's readers for a journal read offline (`READERS`).
"""

from __future__ import annotations

from collections.abc import Mapping

from zenmux_emulator.core.journal.verdict import Shapes
from zenmux_emulator.core.spec import FaceSpec, face_names, readers_of
from zenmux_emulator.faces.anthropic.spec import SPEC as ANTHROPIC
from zenmux_emulator.faces.chat.spec import SPEC as CHAT
from zenmux_emulator.faces.embeddings.spec import SPEC as EMBEDDINGS
from zenmux_emulator.faces.imagen.spec import SPEC as IMAGEN
from zenmux_emulator.faces.images.spec import SPEC as IMAGES
from zenmux_emulator.faces.interactions.spec import SPEC as INTERACTIONS
from zenmux_emulator.faces.objectiveai.spec import SPEC as OBJECTIVEAI
from zenmux_emulator.faces.platform.spec import SPEC as PLATFORM
from zenmux_emulator.faces.rerank.spec import SPEC as RERANK
from zenmux_emulator.faces.responses.spec import SPEC as RESPONSES
from zenmux_emulator.faces.speech.spec import SPEC as SPEECH
from zenmux_emulator.faces.systemone.spec import SPEC as SYSTEMONE
from zenmux_emulator.faces.transcription.spec import SPEC as TRANSCRIPTION
from zenmux_emulator.faces.vertex.spec import SPEC as VERTEX
from zenmux_emulator.faces.videos.spec import SPEC as VIDEOS
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
    SYSTEMONE,
    INTERACTIONS,
)
"""The wire APIs this emulator speaks, in registration order."""
NAMES: FaceNames = face_names(FACES)
"""The `api` names (and traits) scenario files may give, for what reads them without an app."""
READERS: Mapping[str, Shapes] = readers_of(FACES)
"""The client verdict's readers, for a journal read without an app."""
