"""A real redis-server (Debian's package, installed by `make test`) for the shared-state tests:
one per test process on a free port, emptied before every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from zenmux_emulator.state.redis_server import RedisServer, free_port


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    with RedisServer(port=free_port()) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of an empty Redis database."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushdb()
    return redis_server.url
