"""The floor: the work the contract asks for per non-streamed request, and nothing else.

Not the emulator and not a baseline: a reference that bounds what any faithful emulator can reach
on this machine. Per request it keeps a journal record with a request id, reads the key and the
session, validates the body with the emulator's own checks (ZenMux's 400s, the pydantic models,
tool-call pairing), counts prompt tokens, checks the model id, matches the last user message in a
dict, derives the generation id, builds the usage object and the completion, and answers with the
emulator's headers. It calls the emulator's own functions for those steps and skips the rest of
its machinery: middlewares, rate limits and balances, control headers, chaos, provider routing,
expectations, drafting and planning. See docs/performance.md, "The floor".
Run: python bench/floor.py --port 0  (prints the same "listening on" line as the emulator).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import time
from typing import Any

import orjson
from aiohttp import web
from baseline import serve
from gen_scenarios import CONTENT, PLAIN_PROMPT

from zenmux_emulator.core.draft.usage import usage_object
from zenmux_emulator.core.face import FaceContext
from zenmux_emulator.core.gateway.auth import authenticate
from zenmux_emulator.core.gateway.catalogue import admit_model
from zenmux_emulator.core.rules.compiled import ScenarioSet
from zenmux_emulator.faces.chat.face import CHAT
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import completion_id, request_id
from zenmux_emulator.state.sessions import SessionStore, session_name

REPLIES = {PLAIN_PROMPT: ("plain", CONTENT)}  # last user message -> (rule, content)
SCENARIOS = ScenarioSet()  # the built-in catalogue only, as the bench's scenario files
JOURNAL: collections.deque[dict[str, Any]] = collections.deque(maxlen=1000)
SESSIONS = SessionStore()
RECEIVED = [0]


async def chat(request: web.Request) -> web.Response:
    """Journal, authenticate, parse, validate, match, render, write: the contract's steps only."""
    RECEIVED[0] += 1
    rid = request_id(0, RECEIVED[0])
    entry: dict[str, Any] = {"seq": RECEIVED[0], "request_id": rid, "time": time.time(), "headers": request.headers}
    JOURNAL.append(entry)
    key = authenticate(request.headers, ())
    session = SESSIONS.get(session_name(request.headers, key))
    body = orjson.loads(await request.read())
    entry["body"] = body
    chat_request = CHAT.parse(body, FaceContext(session.name, request.headers, request.match_info, request.query))
    prompt = chat_request.prompt_tokens
    admit_model(
        chat_request.requested_model, chat_request.model, SCENARIOS.catalogue, SCENARIOS.catalogue_closed, prompt
    )
    rule, content = REPLIES.get(chat_request.last_user or "", ("", ""))
    session.gateway.arrivals += 1  # the request's number in its session, which its id is made from
    cid = completion_id(0, session.name, session.gateway.arrivals)
    reply = orjson.dumps(
        {
            "id": cid,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": chat_request.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None, "annotations": []},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": usage_object(prompt, tokens.count(content)),
        }
    )
    entry["response"] = reply
    return web.Response(
        body=reply,
        headers={
            "x-generation-id": cid,
            "X-Emulator-Rule": rule,
            "X-Emulator-Routing": f"{chat_request.model}@openai=ok",
            "Content-Type": "application/json",
            "X-ZenMux-RequestId": rid,
            "x-request-id": rid,
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port, chat, "floor"))


if __name__ == "__main__":
    main()
