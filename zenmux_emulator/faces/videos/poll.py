"""Where a job is asked after: ZenMux's `GET /api/v1/videos/{id}` (`queued`, `running`, then
`succeeded` with `content.video_url`, or `failed` with `error`), the video that URL names
(`GET /api/v1/videos/{id}/content`, also the openai SDK's `download_content`), and Veo's
`:fetchPredictOperation`. Each is journalled under the `videos` face; asking does not change a job."""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from zenmux_emulator.core.body import read_json
from zenmux_emulator.core.endpoint import Core
from zenmux_emulator.core.gateway.auth import authenticate
from zenmux_emulator.core.side import note, note_session
from zenmux_emulator.faces.videos.film import MIME
from zenmux_emulator.faces.videos.jobs import Job, JobStore, video
from zenmux_emulator.faces.videos.openai_video import video_object
from zenmux_emulator.faces.videos.spec import NAME, NATIVE
from zenmux_emulator.faces.videos.veo import encoded
from zenmux_emulator.foundation.errors import RequestRejected, invalid_params

FAILED = "generation_failed"


def origin(request: web.Request) -> str:
    scheme = request.headers.get("X-Forwarded-Proto", "http")
    return f"{scheme}://{request.headers.get('Host', 'localhost')}"


def json_answer(request: web.Request, body: Any) -> web.Response:
    """The answer, noted for the journal as sent."""
    sent = orjson.dumps(body)
    note(request, response=sent)
    return web.Response(body=sent, content_type="application/json")


class Polls:
    """The poll routes' handlers over one app's jobs."""

    def __init__(self, core: Core, store: JobStore) -> None:
        self.core = core
        self.store = store

    async def job(self, request: web.Request, id: str, auth: bool = True) -> Job:
        note(request, api=NAME)
        # the session, as the submission's (its header, else the key's); the keyless download's its header's
        note_session(request, authenticate(request.headers, self.core.accepted_keys()) if auth else None)
        job = await self.store.get(id)
        if job is None:
            raise RequestRejected(404, "not_found", f"Video task '{id}' not found")
        await self.core.state.read_clock()  # staged on the clock as the state has it: another worker may have moved it
        return job

    async def native(self, request: web.Request) -> web.Response:
        job = await self.job(request, request.match_info["id"])
        stage = self.store.stage(job)
        if job.openai:
            return json_answer(request, video_object(job, stage, self.store.clock.now()))
        body: dict[str, Any] = {"id": job.id, "status": stage, "model": job.model}
        if stage == "done" and job.failure is not None:
            body |= {"status": "failed", "error": {"code": FAILED, "message": job.failure}}
        elif stage == "done":
            body |= {"status": "succeeded", "content": {"video_url": f"{origin(request)}{NATIVE}/{job.id}/content"}}
        return json_answer(request, body)

    async def content(self, request: web.Request) -> web.Response:
        """The finished job's video; a job not (yet) finished, or failed, has none: 404."""
        job = await self.job(request, request.match_info["id"], auth=False)
        variant = request.query.get("variant", "video")
        if variant != "video":
            raise invalid_params(f"Parameter variant is not valid: the emulator makes the video only, not a {variant}")
        if self.store.stage(job) != "done" or job.failure is not None:
            state = "failed" if job.failure is not None else self.store.stage(job)
            raise RequestRejected(404, "not_found", f"Video task '{job.id}' has no video: it is {state}")
        made = await video(job)
        note(request, response=made)  # the journal's copy, as a speech's audio is kept: the inspector plays it
        return web.Response(body=made, content_type=MIME)

    async def veo(self, request: web.Request) -> web.Response:
        """`{"operationName": name}` to the operation: its `name`, and once done `done` and `response`."""
        note(request, api=NAME)
        note_session(request, authenticate(request.headers, self.core.accepted_keys()))
        body = await read_json(request, self.core.settings.max_body_bytes)
        note(request, body=body)
        name = body.get("operationName") if isinstance(body, dict) else None
        if not isinstance(name, str) or "/operations/" not in name:
            raise invalid_params("Parameter operationName is required: the name :predictLongRunning answered")
        job = await self.job(request, name.rpartition("/operations/")[2], auth=False)
        if self.store.stage(job) != "done":
            return json_answer(request, {"name": name})
        if job.failure is not None:
            response: dict[str, Any] = {"raiMediaFilteredCount": job.count, "raiMediaFilteredReasons": [job.failure]}
            return json_answer(request, {"name": name, "done": True, "response": response})
        videos = [encoded(await video(job, index)) for index in range(job.count)]
        # journaled whole, as a download's MP4 is (past the journal's body bound, as its size and
        # hash): the inspector plays what it keeps
        answer = {"name": name, "done": True, "response": {"raiMediaFilteredCount": 0, "videos": videos}}
        return json_answer(request, answer)
