"""The faces this package ships, each its folder's one `FaceSpec`: the one list of them.

`create_app` registers these by default (`app.FACES`), and everything that needs to know the
shipped faces without an app (the `api` names `zenmux-emulator validate` accepts, the verdict's
readers for a journal read offline) derives them from here: `face_names(FACES)`, `readers_of(FACES)`.
"""

from __future__ import annotations

from zenmux_emulator.faces.anthropic.routes import SPEC as ANTHROPIC
from zenmux_emulator.faces.chat.routes import SPEC as CHAT
from zenmux_emulator.faces.embeddings.routes import SPEC as EMBEDDINGS
from zenmux_emulator.faces.objectiveai.routes import SPEC as OBJECTIVEAI
from zenmux_emulator.faces.platform.routes import SPEC as PLATFORM
from zenmux_emulator.faces.rerank.routes import SPEC as RERANK
from zenmux_emulator.faces.responses.routes import SPEC as RESPONSES
from zenmux_emulator.faces.vertex.routes import SPEC as VERTEX
from zenmux_emulator.pipeline.spec import FaceSpec

FACES: tuple[FaceSpec, ...] = (CHAT, ANTHROPIC, RESPONSES, OBJECTIVEAI, VERTEX, EMBEDDINGS, RERANK, PLATFORM)
"""The wire APIs this emulator speaks, in registration order."""
