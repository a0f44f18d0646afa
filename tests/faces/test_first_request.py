"""A face's handlers are imported on its first request (`core/deferred.py`): many first requests at
once, to a server that has answered none, all wait for the one import and answer as any later one
does; a deferred GET route answers HEAD as aiohttp's GET routes do."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import aiohttp

from zenmux_emulator.pytest_plugin.server import EmulatorServer

RERANK = {"model": "alibaba/gte-rerank-v2", "input": {"query": "which one", "documents": ["first", "second", "third"]}}
HEADERS = {"Authorization": "Bearer sk-first", "Content-Type": "application/json"}


async def rerank_all_at_once(origin: str, count: int) -> list[tuple[int, bytes]]:
    async with aiohttp.ClientSession() as client:

        async def one() -> tuple[int, bytes]:
            async with client.post(f"{origin}/api/v1/rerank", json=RERANK, headers=HEADERS) as answer:
                return answer.status, await answer.read()

        return await asyncio.gather(*(one() for _ in range(count)))


def test_sixteen_first_requests_to_a_face_all_answer_alike(make_server: Callable[..., EmulatorServer]) -> None:
    server = make_server("rules: []\n")
    first = asyncio.run(rerank_all_at_once(server.origin, 16))
    later = asyncio.run(rerank_all_at_once(server.origin, 1))
    assert {status for status, _ in first} == {200}, first[:2]
    assert {body for _, body in first} == {later[0][1]}  # one answer, whether the face was loaded or not
    assert len(json.loads(later[0][1])["results"]) == 3


def test_a_deferred_get_route_answers_head_too(make_server: Callable[..., EmulatorServer]) -> None:
    server = make_server("rules: []\n")

    async def ask() -> tuple[int, int, bytes]:
        async with aiohttp.ClientSession() as client:
            headers = {"x-api-key": "sk-first", "anthropic-version": "2023-06-01"}
            async with client.head(f"{server.origin}/api/anthropic/v1/models", headers=headers) as head:
                head_status = head.status
            async with client.get(f"{server.origin}/api/anthropic/v1/models", headers=headers) as got:
                return head_status, got.status, await got.read()

    head_status, get_status, body = asyncio.run(ask())
    assert (head_status, get_status) == (200, 200)
    assert b'"data"' in body
