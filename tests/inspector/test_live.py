"""The inspector's live list (`/_emulator/ui/events`) read as raw Server-Sent Events by many tabs at once:
each gets every new request once, from one feed per process (in process nothing is polled: the journal
hands each finished entry over), a tab opened later gets the backlog first, and the open lists are
capped, the next one refused in the control API's envelope until one closes."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Iterator

import aiohttp
import pytest
import redis

from tests.conftest import FROZEN
from tests.state.conftest import redis_server, redis_url  # noqa: F401 - the shared-state tests' real Redis
from tests.support.clients import API_KEY
from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.server.inspector.feed import LISTS_MAX
from zenmux_emulator.settings import Settings

SCENARIO = """\
rules:
  - name: greet
    match: {last_user: {contains: hello}}
    reply: {content: Hello from the emulator}
"""
TABS = 20
WAIT_S = 30.0
"""How long a tab waits for a row it is owed (a liveness margin on a loaded machine, never a speed check)."""


@pytest.fixture
def server(tmp_path) -> Iterator[EmulatorServer]:
    (tmp_path / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    with EmulatorServer(Settings(port=0, scenarios=[str(tmp_path)], clock=FROZEN, watch=False)) as running:
        yield running


class Tab:
    """One open live list: the `seq`s of the rows it was sent, in order."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self.response = response
        self.seqs: list[int] = []

    async def until(self, wanted: set[int], rows: int = 0) -> list[int]:
        """Rows read until every `seq` in `wanted` came (and at least `rows` rows); all the seqs read."""
        async with asyncio.timeout(WAIT_S):
            while not wanted <= set(self.seqs) or len(self.seqs) < rows:
                line = await self.response.content.readline()
                assert line, "the live list ended"
                if line.startswith(b"data: "):
                    self.seqs.append(json.loads(line[6:])["seq"])
        return self.seqs


@contextlib.asynccontextmanager
async def tabs(server: EmulatorServer, count: int) -> AsyncIterator[list[Tab]]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as client:
        opened = [await client.get(f"{server.origin}/_emulator/ui/events") for _ in range(count)]
        try:
            assert [response.status for response in opened] == [200] * count
            yield [Tab(response) for response in opened]
        finally:
            for response in opened:
                response.close()


async def ask(server: EmulatorServer, text: str) -> int:
    """A chat request; its journal `seq`."""
    async with aiohttp.ClientSession() as client:
        reply = await client.post(
            f"{server.base_url}/chat/completions",
            headers={"Authorization": f"Bearer {API_KEY}"},
            json={"model": "openai/gpt-5", "messages": [{"role": "user", "content": text}]},
        )
        assert reply.status == 200
        entries = await (await client.get(f"{server.origin}/_emulator/journal")).json()
        return int(entries["entries"][-1]["seq"])


async def settle(condition: object) -> None:
    """Let the server's thread catch up with a connection just closed (bounded, never timed)."""
    for _ in range(200):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.02)


async def test_every_open_list_gets_the_backlog_then_each_new_request_once(server):
    before = await ask(server, "hello before")
    async with tabs(server, TABS) as opened:
        for tab in opened:
            assert await tab.until({before}) == [before]
        # one feed for all the tabs: in process it is the journal's one watcher, and nothing polls
        assert len(server.state.journal.watchers) == 1
        new = {await ask(server, "hello there"), await ask(server, "hello again")}
        for tab in opened:
            seqs = await tab.until(new)
            assert sorted(seqs) == sorted({before, *new}) and len(seqs) == len(set(seqs))
    await settle(lambda: not server.state.journal.watchers)
    assert server.state.journal.watchers == []  # closed tabs leave nothing behind to call


async def test_a_list_opened_again_after_all_closed_is_fed_again(server):
    async with tabs(server, 1) as [tab]:
        first = await ask(server, "hello one")
        await tab.until({first})
    await settle(lambda: not server.state.journal.watchers)
    async with tabs(server, 2) as opened:
        second = await ask(server, "hello two")
        for tab in opened:
            assert await tab.until({first, second}) == [first, second]


async def test_a_list_asked_to_start_after_a_seq_gets_only_newer_rows(server):
    first = await ask(server, "hello one")
    async with aiohttp.ClientSession() as client:
        async with client.get(f"{server.origin}/_emulator/ui/events?after={first}") as response:
            tab = Tab(response)
            second = await ask(server, "hello two")
            assert await tab.until({second}) == [second]


async def test_lists_past_the_cap_are_refused_until_one_closes(server):
    async with tabs(server, LISTS_MAX) as opened, aiohttp.ClientSession() as client:
        refused = await client.get(f"{server.origin}/_emulator/ui/events")
        assert refused.status == 503
        body = await refused.json()
        assert f"{LISTS_MAX} inspector live lists are open" in body["error"]["message"]
        opened[0].response.close()
        await settle(lambda: len(server.state.journal.watchers) == 1)
        for _ in range(200):  # the server notices the closed list when its handler ends
            async with client.get(f"{server.origin}/_emulator/ui/events") as again:
                if again.status == 200:
                    break
            await asyncio.sleep(0.02)
        assert again.status == 200


@pytest.fixture
def shared(tmp_path, redis_url: str) -> Iterator[EmulatorServer]:  # noqa: F811
    (tmp_path / "rules.yaml").write_text(SCENARIO, encoding="utf-8")
    settings = Settings(port=0, scenarios=[str(tmp_path)], clock=FROZEN, watch=False, state=redis_url)
    with EmulatorServer(settings) as running:
        yield running


async def test_an_emptied_shared_journal_numbering_again_from_1_is_listed_again(shared, redis_url):  # noqa: F811
    """Issue 40: under --state the feed (and each tab) remembered the `seq`s it had sent, and Redis
    restarted empty (or flushed) numbers requests from 1 again: the new requests were never listed."""
    async with tabs(shared, 2) as opened:
        before = {await ask(shared, "hello one"), await ask(shared, "hello two")}
        for tab in opened:
            assert sorted(await tab.until(before)) == sorted(before)
        with redis.Redis.from_url(redis_url) as client:
            client.flushdb()
        again = {await ask(shared, "hello three"), await ask(shared, "hello four")}
        assert again == before  # the emptied store numbers from 1 again
        for tab in opened:
            seqs = await tab.until(again, rows=4)  # the two new rows come, under the numbers the old ones had
            assert seqs == [*sorted(before), *sorted(again)], seqs
