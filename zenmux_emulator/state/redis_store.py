"""`--state redis://HOST:PORT/DB`: the shared state in Redis, through redis-py's asyncio client.

Keys (all under `zenmux:`): `session:<name>` a hash of one session's counters (`h:<rule>` reply
positions, `r:<model>` rotations, `p:<model>@<provider>` provider tries, `arrivals` the requests
let in (each request's number, taken by the script that opens it: its ids are made from it),
`s:<key id>` credits spent, `b:<key id>:<kind>:l|a` rate buckets); `sessions` the set of session
names; `seq` the requests received; `journal` the newest entries as JSON; `responses:<session>` the
faces' stored objects (Responses' stored responses, Anthropic's thread turns), bounded as in
process (`state.per_session`: 1,000 a session, 64 MiB in all, in order `objects:order…`) and
deleted with the session's counters by `reset`; `generation:<id>` a completion's generation record (kept an hour); `clock` the
frozen clock; `states:<owner>` a hash of the scenario states of one session (or of `*`, the
server-wide scenarios), `[state]` or `[state, then, due]` by scenario, and `state-owners` the set of
owners that have one; `scenarios:api` and `scenarios:version` the control API's scenarios; `epoch` marks
the database as holding the emulator's state. API keys are never stored: a key is known by a digest.

A dropped connection (Redis restarted) is retried on a new one; a database found emptied (a
restart without persistence, a FLUSHDB: `epoch` is gone) is told to the request path, which
re-asserts the clock and the control API's scenarios (`restore`). Any other failure of Redis is
the outage's 503 (see `outage`), never a traceback per request; so is an operation that takes
longer than `--state-timeout` (a Redis that accepts connections but never answers: stopped, or
stuck in a long script), its connection dropped.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Coroutine, Mapping
from functools import lru_cache
from typing import Any, Concatenate, ParamSpec, TypeVar

import orjson
import redis.asyncio as redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import BusyLoadingError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from zenmux_emulator.foundation.ids import digest
from zenmux_emulator.state.outage import Outage
from zenmux_emulator.state.per_session import PER_SESSION, STORED_BYTES
from zenmux_emulator.state.redis_server import shown
from zenmux_emulator.state.scenario_states import Standing
from zenmux_emulator.state.sessions import Session
from zenmux_emulator.state.shared import (
    Admission,
    AdmissionAsk,
    Opened,
    ScenariosBehind,
    StaleScenarios,
    StateLost,
    StateUnavailable,
)
from zenmux_emulator.state.spend import BUCKETS_KEPT, Spend, StoredBucket, StoredLedger

log = logging.getLogger("emulator.state")

P = "zenmux:"
GENERATION_TTL_S = 3600
"""How long a generation record stays in Redis for the lookup (its count is not bounded there)."""
VERSION, API, SEQ, SESSIONS, CLOCK, JOURNAL = (
    P + "scenarios:version",
    P + "scenarios:api",
    P + "seq",
    P + "sessions",
    P + "clock",
    P + "journal",
)
EPOCH = P + "epoch"
MISBEHAVE = P + "misbehave"
OBJECTS, OBJECTS_ORDER = P + "responses:", P + "objects:order:"
"""A session's stored objects by id (`responses:<session>`), and their order (`objects:order:<session>`)."""
LEDGER, LEDGER_ORDER, LEDGER_METERED, LEDGER_SUBSCRIPTION = (
    P + "ledger",
    P + "ledger:order",
    P + "ledger:metered",
    P + "ledger:subscription",
)
ANNOUNCE = P + "journal:finished"
"""The channel each finished journal entry is published on (the inspector's live lists listen)."""
MISBEHAVING_KEPT = 10_000
"""Sessions with a standing fault the store keeps (past it, one of them is forgotten)."""
ONCE_KEPT = 10_000
"""Ids a session asked for `once` that the store remembers; past it, it forgets them all."""
SEP, FIELD = "\x1f", "\x1e"
"""Between the parts of a ledger bucket's name, and between its name and one of its fields."""
BUCKET_FIELDS = ("m", "n", "p", "c", "pc", "cc", "oc", "uc", "us")
"""A ledger bucket's fields, each `<slot>\x1e<field>` in the ledger's hash: its meta (stamp, model,
key id, subscription), requests, prompt and completion tokens, prompt, completion and other cost,
media units counted and seconds metered (absent until a completion meters any)."""
STATE_OWNERS = P + "state-owners"
RETRIES = 3
RESUBSCRIBE_S = 0.5
"""How long a dropped subscription to the journal's announcements waits before subscribing again."""
"""Tries again of a command whose connection dropped (Redis restarted), each on a new connection."""

OPEN = """
if redis.call('EXISTS', KEYS[6]) == 0 then return {'lost'} end
local version = redis.call('GET', KEYS[1]) or '0'
if tonumber(version) < tonumber(ARGV[1]) then return {'behind', version} end
if version ~= ARGV[1] then return {'stale', version} end
local seq = redis.call('INCR', KEYS[2])
redis.call('SADD', KEYS[3], ARGV[2])
local h = KEYS[4]
local clock = redis.call('GET', KEYS[5])
local now = tonumber(clock or ARGV[3])
local verdict = 'ok'
local levels = {}
local wait = 0
if ARGV[4] == '1' then
  local key, eps, n = ARGV[5], 1e-9, tonumber(ARGV[7])
  local state = {}
  for i = 0, n - 1 do
    local kind, cap = ARGV[8 + i * 4], tonumber(ARGV[9 + i * 4])
    local need, window = tonumber(ARGV[10 + i * 4]), tonumber(ARGV[11 + i * 4])
    local f = 'b:' .. key .. ':' .. kind
    local level = tonumber(redis.call('HGET', h, f .. ':l') or cap)
    local at = tonumber(redis.call('HGET', h, f .. ':a') or now)
    if now > at then level = math.min(cap, level + (now - at) * cap / window) end
    state[i + 1] = {f, level, need}
    if level + eps < need then
      local short = cap
      if need <= cap then short = need - level end
      wait = math.max(wait, short * window / cap)
    end
  end
  if wait > 0 then verdict = 'limited' end
  for i, s in ipairs(state) do
    local level = s[2]
    if verdict == 'ok' then level = math.max(0, level - s[3]) end
    levels[i] = string.format('%.17g', level)
    redis.call('HSET', h, s[1] .. ':l', levels[i], s[1] .. ':a', string.format('%.17g', now))
  end
  if verdict == 'ok' and ARGV[6] ~= '' then
    local spent = tonumber(redis.call('HGET', h, 's:' .. key) or '0')
    if tonumber(ARGV[6]) - spent <= eps then verdict = 'broke' end
  end
end
if verdict == 'ok' then redis.call('HINCRBY', h, 'arrivals', 1) end
local standing = redis.call('HGET', KEYS[7], ARGV[2]) or ''
return {verdict, seq, clock or '', levels, string.format('%.17g', wait), redis.call('HGETALL', h), standing}
"""

CLAIM = """
local now = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if now == tonumber(ARGV[2]) then
  redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  return -1
end
return now
"""
"""Take one position of a rule's reply sequence: it moves on only from the position the request
read, so two requests in flight never both serve it (the second gets the position stored now)."""

MOVE_STATE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
local state = 'started'
if raw then
  local s = cjson.decode(raw)
  state = s[1]
  if #s >= 3 and tonumber(ARGV[3]) >= tonumber(s[3]) then state = s[2] end
end
if state ~= ARGV[2] then return state end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[5])
return false
"""
"""Move a scenario only from the state the request matched in (its pending timed move resolved at
the emulator's `now`): of requests in flight at a transition, exactly one makes it, and the others
get the state stored now, to match again."""

RESTORE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX') == false then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
if ARGV[4] ~= '0' then
  redis.call('SET', KEYS[3], ARGV[3])
  redis.call('SET', KEYS[4], ARGV[4])
end
return 1
"""
"""Mark an emptied database as the emulator's again, with the clock and the control API's
scenarios (at the version the instances have in force) of the first instance to find it so."""

REASSERT = """
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
return 1
"""
"""Put an instance's control-API scenarios back at its version when the database holds an older
one (emptied and restored by an instance that had not yet taken the newest, or restarted from an
older snapshot): versions only move forward, so the newest set any instance holds wins."""

CLEAR = """
local items = redis.call('LRANGE', KEYS[1], 0, -1)
local kept, removed = {}, 0
for _, item in ipairs(items) do
  local ok, entry = pcall(cjson.decode, item)
  if ok and entry.session == ARGV[1] then removed = removed + 1 else kept[#kept + 1] = item end
end
redis.call('DEL', KEYS[1])
for i = 1, #kept, 1000 do redis.call('RPUSH', KEYS[1], unpack(kept, i, math.min(i + 999, #kept))) end
return removed
"""


KEEP_OBJECT = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
local n = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[2], n, ARGV[3] .. '\\31' .. ARGV[1])
redis.call('ZADD', KEYS[4], n, ARGV[1])
local bytes = redis.call('INCRBY', KEYS[3], string.len(ARGV[2]))
while redis.call('ZCARD', KEYS[4]) > tonumber(ARGV[4]) do
  local gone = redis.call('ZPOPMIN', KEYS[4])[1]
  bytes = redis.call('DECRBY', KEYS[3], redis.call('HSTRLEN', KEYS[1], gone))
  redis.call('HDEL', KEYS[1], gone)
  redis.call('ZREM', KEYS[2], ARGV[3] .. '\\31' .. gone)
end
while bytes > tonumber(ARGV[5]) and redis.call('ZCARD', KEYS[2]) > 0 do
  local gone = redis.call('ZPOPMIN', KEYS[2])[1]
  local at = string.find(gone, '\\31', 1, true)
  local owner, id = string.sub(gone, 1, at - 1), string.sub(gone, at + 1)
  local h = ARGV[6] .. owner
  bytes = redis.call('DECRBY', KEYS[3], redis.call('HSTRLEN', h, id))
  redis.call('HDEL', h, id)
  redis.call('ZREM', ARGV[7] .. owner, id)
end
return 1
"""
"""Keep a face's object in its session unless one is kept under its id (never replaced), then
drop the session's oldest past `PER_SESSION` and the oldest of any session while all of them
hold more than `STORED_BYTES`: the bounds of `state.per_session` in process."""

DROP_OBJECTS = """
local bytes = 0
for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
  bytes = bytes + redis.call('HSTRLEN', KEYS[1], id)
  redis.call('ZREM', KEYS[2], ARGV[1] .. '\\31' .. id)
end
if bytes > 0 then redis.call('DECRBY', KEYS[3], bytes) end
redis.call('DEL', KEYS[1], KEYS[4])
return bytes
"""
"""Forget a session's objects (a reset), their bytes and places in the order with them."""

DROP_OBJECT = """
local size = redis.call('HSTRLEN', KEYS[1], ARGV[1])
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DECRBY', KEYS[3], size)
redis.call('ZREM', KEYS[2], ARGV[2] .. '\\31' .. ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
"""

LEDGER_ADD = """
local h, slot = KEYS[1], ARGV[1]
if redis.call('ZSCORE', KEYS[2], slot) == false then
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[13]) then
    local gone = redis.call('ZPOPMIN', KEYS[2])[1]
    for _, f in ipairs({'m', 'n', 'p', 'c', 'pc', 'cc', 'oc', 'uc', 'us'}) do redis.call('HDEL', h, gone .. '\\30' .. f) end
  end
  redis.call('ZADD', KEYS[2], ARGV[2], slot)
  redis.call('HSET', h, slot .. '\\30m', ARGV[3])
end
redis.call('HINCRBY', h, slot .. '\\30n', 1)
redis.call('HINCRBY', h, slot .. '\\30p', ARGV[4])
redis.call('HINCRBY', h, slot .. '\\30c', ARGV[5])
redis.call('HINCRBYFLOAT', h, slot .. '\\30pc', ARGV[6])
redis.call('HINCRBYFLOAT', h, slot .. '\\30cc', ARGV[7])
redis.call('HINCRBYFLOAT', h, slot .. '\\30oc', ARGV[8])
if ARGV[14] ~= '0' then redis.call('HINCRBYFLOAT', h, slot .. '\\30uc', ARGV[14]) end
if ARGV[15] ~= '0' then redis.call('HINCRBYFLOAT', h, slot .. '\\30us', ARGV[15]) end
if ARGV[9] == '1' then
  redis.call('ZADD', KEYS[4], ARGV[11], ARGV[12])
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. string.format('%.17g', tonumber(ARGV[11]) - 604800))
else
  redis.call('INCRBYFLOAT', KEYS[3], ARGV[10])
end
return 1
"""
"""Add one completion's spend to its minute bucket (a new bucket past the bound takes the place of
the oldest minute's), and to the PAYG total or the subscription's spend times (a week kept)."""

SHELF_KEEP = """
local h, z, b, m = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local old = redis.call('HSTRLEN', h, ARGV[1])
local bytes = redis.call('INCRBY', b, string.len(ARGV[2]) - old)
redis.call('HSET', h, ARGV[1], ARGV[2])
redis.call('ZADD', z, redis.call('INCR', KEYS[5]), ARGV[1])
while redis.call('ZCARD', z) > 0 and (redis.call('ZCARD', z) > tonumber(ARGV[3]) or bytes > tonumber(ARGV[4])) do
  local gone = redis.call('ZPOPMIN', z)[1]
  bytes = redis.call('INCRBY', b, -redis.call('HSTRLEN', h, gone))
  redis.call('HDEL', h, gone)
  redis.call('HDEL', m, gone)
end
return bytes
"""
"""Keep an object on a shelf (in place of one under its id), then drop the oldest, marks and all,
while the shelf holds more than its count or its bytes: the bounds of `foundation.bounded`."""

MARK = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
if ARGV[2] == '' then redis.call('HDEL', KEYS[2], ARGV[1]) else redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) end
return 1
"""

SET_ASK = """
if ARGV[2] == '' then return redis.call('HDEL', KEYS[1], ARGV[1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[3]) then
  local other = redis.call('HRANDFIELD', KEYS[1], 2)
  for _, name in ipairs(other) do
    if name ~= ARGV[1] then redis.call('HDEL', KEYS[1], name) break end
  end
end
return 1
"""

JOURNAL_PUSH = """
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1
"""
"""Journal an entry (the newest `--journal-size` kept) and announce it to the inspector's live
lists on every instance: the entry's bytes go to Redis once for both."""

TAKE_CALL = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return false
"""
"""Count a call in a limit's window (the calls of the window before it dropped): the Platform
API's `/usage` and `/cost` limit, shared by every worker and instance; past the limit, not counted,
the time of the window's oldest call (nil when counted)."""

ONCE = """
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then return 0 end
if redis.call('SCARD', KEYS[1]) > tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('SADD', KEYS[1], ARGV[1])
end
return 1
"""
"""Whether an id is asked for `once` the first time in its session (a session remembers
`ONCE_KEPT` of them; past it, it forgets them all, as the state in process does)."""


@lru_cache(maxsize=1024)
def key_id(api_key: str) -> str:
    """How the store names an API key: a digest, never the key."""
    return digest("state-key", api_key, size=8)


class SharedSession(Session):
    """A session as `open` read it: the request changes it as it would an in-process one, and
    `changes` turns what moved into increments (so concurrent requests add up, never overwrite)."""

    __slots__ = ("base_hits", "base_providers", "base_rotations", "base_spent", "key")

    def __init__(self, name: str, fields: Mapping[str, str], api_key: str | None) -> None:
        super().__init__(name)
        self.key = api_key
        kid = key_id(api_key) if api_key is not None else None
        for field, value in fields.items():
            kind, _, rest = field.partition(":")
            if kind == "h":
                self.hits[rest] = int(value)
            elif kind == "r":
                self.rotations[rest] = int(value)
            elif kind == "p":
                self.provider_requests[rest] = int(value)
            elif kind == "s" and rest == kid and api_key is not None:
                self.gateway.spent[api_key] = float(value)
            elif field == "arrivals":
                self.gateway.arrivals = int(value)
        self.rebase()

    def rebase(self) -> None:
        """What is stored now: the point the next changes are counted from."""
        self.base_hits = dict(self.hits)
        self.base_rotations = dict(self.rotations)
        self.base_providers = dict(self.provider_requests)
        self.base_spent = self.gateway.spent.get(self.key, 0.0) if self.key is not None else 0.0

    def changes(self) -> list[tuple[str, str, int | float]]:
        """(command, field, increment) for every counter that moved since `open` (or the last save)."""
        moved: list[tuple[str, str, int | float]] = []
        for prefix, now, base in (
            ("h:", self.hits, self.base_hits),
            ("r:", self.rotations, self.base_rotations),
            ("p:", self.provider_requests, self.base_providers),
        ):
            for name, count in now.items():
                if count != base.get(name, 0):
                    moved.append(("HINCRBY", prefix + name, count - base.get(name, 0)))
        if self.key is not None:
            spent = self.gateway.spent.get(self.key, 0.0)
            if spent != self.base_spent:
                moved.append(("HINCRBYFLOAT", "s:" + key_id(self.key), spent - self.base_spent))
        return moved


P_ = ParamSpec("P_")
T = TypeVar("T")


def guarded(
    method: Callable[Concatenate[RedisStore, P_], Awaitable[T]],
) -> Callable[Concatenate[RedisStore, P_], Coroutine[Any, Any, T]]:
    """A store operation whose Redis failure is the outage's one answer (and warning)."""

    async def run(self: RedisStore, /, *args: P_.args, **kwargs: P_.kwargs) -> T:
        try:
            async with asyncio.timeout(self.timeout):
                result = await method(self, *args, **kwargs)
        except redis.RedisError as exc:
            raise self.outage.failed(exc) from None
        except TimeoutError:
            raise self.outage.failed(self.timed_out()) from None
        self.outage.answered()
        return result

    return run


def session_key(name: str) -> str:
    return P + "session:" + name


def queue(pipe: Any, script: Any, keys: list[str], args: list[Any]) -> None:
    """A script's call on a pipeline (which loads it first if Redis does not know it)."""
    pipe.scripts.add(script)
    pipe.evalsha(script.sha, len(keys), *keys, *args)


def object_keys(session: str) -> list[str]:
    """A session's objects, the order of every session's, their bytes, the session's order, the counter."""
    return [OBJECTS + session, P + "objects:order", P + "objects:bytes", OBJECTS_ORDER + session, P + "objects:n"]


def once_key(name: str) -> str:
    return P + "once:" + name


def shelf_keys(shelf: str) -> list[str]:
    """A shelf's objects by id, their order, their bytes, their marks and its counter."""
    return [P + "shelf:" + shelf + ":" + part for part in ("objects", "order", "bytes", "marks", "n")]


def spent(spend: Spend) -> list[str | int]:
    """LEDGER_ADD's arguments for one completion's spend."""
    slot = SEP.join((str(spend.minute), spend.model, spend.key_id))
    meta = SEP.join((spend.stamp, spend.model, spend.key_id, "1" if spend.subscription else "0"))
    member = SEP.join((spend.name, os.urandom(6).hex(), repr(spend.charged)))  # one per completion
    return [
        slot,
        spend.minute,
        meta,
        spend.prompt_tokens,
        spend.completion_tokens,
        repr(spend.prompt_cost),
        repr(spend.completion_cost),
        repr(spend.other_cost),
        "1" if spend.subscription else "0",
        repr(spend.charged),
        repr(spend.moment),
        member,
        BUCKETS_KEPT,
        _amount(spend.counted),
        _amount(spend.seconds),
    ]


def _amount(value: float) -> str:
    """A metered amount as LEDGER_ADD reads it: "0" when none (the field is then left alone)."""
    return repr(value) if value else "0"


def stored_ledger(
    order: list[tuple[str, float]], fields: Mapping[str, str], metered: str | None, times: list[tuple[str, float]]
) -> StoredLedger:
    """The ledger's keys as read, as a `StoredLedger` (a bucket whose fields are gone is skipped)."""
    buckets = []
    for slot, score in order:
        meta = fields.get(slot + FIELD + "m")
        if meta is None:
            continue
        stamp, model, kid, subscription = meta.split(SEP)
        number = [fields.get(slot + FIELD + name, "0") for name in BUCKET_FIELDS[1:]]
        buckets.append(
            StoredBucket(
                int(score),
                stamp,
                model,
                kid,
                subscription == "1",
                int(number[0]),
                int(number[1]),
                int(number[2]),
                float(number[3]),
                float(number[4]),
                float(number[5]),
                float(number[6]),
                float(number[7]),
            )
        )
    spend = [(when, float(member.rsplit(SEP, 1)[1])) for member, when in times]
    return StoredLedger(buckets, float(metered or 0.0), spend)


def states_key(owner: str) -> str:
    return P + "states:" + owner


def _standings(fields: Mapping[str, str]) -> dict[str, Standing]:
    return {str(scenario): Standing.decode(value) for scenario, value in fields.items()}


class RedisStore:
    """The shared state in one Redis database (see the module's docstring for its keys)."""

    def __init__(self, url: str, journal_size: int, timeout: float = 2.0) -> None:
        self.url = url
        self.journal_size = journal_size
        self.timeout = timeout
        """Seconds an operation may take, its retries included (`--state-timeout`)."""
        self.scenarios_version = 0
        self.client: redis.Redis = redis.Redis.from_url(
            url,
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(ExponentialBackoff(cap=0.25, base=0.02), RETRIES),
            retry_on_error=[RedisConnectionError, RedisTimeoutError, BusyLoadingError],
        )
        self.outage = Outage(url)
        self._open = self.client.register_script(OPEN)
        self._restore = self.client.register_script(RESTORE)
        self._clear = self.client.register_script(CLEAR)
        self._claim = self.client.register_script(CLAIM)
        self._reassert = self.client.register_script(REASSERT)
        self._ledger_add = self.client.register_script(LEDGER_ADD)
        self._shelf_keep = self.client.register_script(SHELF_KEEP)
        self._mark = self.client.register_script(MARK)
        self._set_ask = self.client.register_script(SET_ASK)
        self._once = self.client.register_script(ONCE)
        self._take_call = self.client.register_script(TAKE_CALL)
        self._journal = self.client.register_script(JOURNAL_PUSH)
        self._keep_object = self.client.register_script(KEEP_OBJECT)
        self._drop_objects = self.client.register_script(DROP_OBJECTS)
        self._drop_object = self.client.register_script(DROP_OBJECT)
        self._move_state = self.client.register_script(MOVE_STATE)
        self._responses: list[tuple[str, str, bytes]] = []
        self._generations: list[tuple[tuple[str, ...], bytes]] = []
        self._spends: list[Spend] = []
        self._shelved: list[tuple[str, str, bytes, int, int]] = []

    async def start(self, clock: float | None) -> None:
        """Check the server answers (a wrong URL stops start-up) and take the scenarios' version;
        `--clock` freezes the shared clock unless it is frozen already (a worker started again)."""
        try:
            async with asyncio.timeout(self.timeout):
                await self.client.ping()
        except redis.RedisError as exc:
            raise StateUnavailable(f"the shared state {shown(self.url)} does not answer: {exc}") from None
        except TimeoutError:
            raise StateUnavailable(f"the shared state {shown(self.url)} does not answer: {self.timed_out()}") from None
        if clock is not None:
            await self.client.set(CLOCK, repr(float(clock)), nx=True)
        await self.client.set(EPOCH, "1", nx=True)
        self.scenarios_version = int(await self.client.get(VERSION) or 0)

    async def close(self) -> None:
        await self.client.aclose()

    def timed_out(self) -> RedisTimeoutError:
        return RedisTimeoutError(f"no answer within {self.timeout:g} s (--state-timeout)")

    @guarded
    async def restore(self, frozen_at: float | None, api: Mapping[str, str]) -> bool:
        restored = bool(
            await self._restore(
                keys=[EPOCH, CLOCK, API, VERSION],
                args=[
                    "1",
                    "" if frozen_at is None else repr(frozen_at),
                    orjson.dumps(list(api.items())).decode(),
                    self.scenarios_version,
                ],
            )
        )
        if restored:
            log.warning(
                "the shared state %s was emptied (restarted or flushed): sessions, reply positions, rate "
                "buckets, credits spent, the journal and stored responses are gone; re-asserted the clock "
                "(%s) and %d control-API scenarios",
                self.outage.url,
                "running" if frozen_at is None else f"frozen at {frozen_at}",
                len(api),
            )
        return restored

    @guarded
    async def open(self, name: str, ask: AdmissionAsk | None, now: float) -> Opened:
        args: list[Any] = [self.scenarios_version, name, repr(now)]
        api_key = None
        if ask is None:
            args += ["0", "", "", 0]
        else:
            api_key = ask.key
            args += ["1", key_id(ask.key), "" if ask.balance is None else repr(ask.balance), len(ask.buckets)]
            for bucket in ask.buckets:
                args += [bucket.kind, bucket.capacity, bucket.need, repr(bucket.window)]
        found = await self._open(keys=[VERSION, SEQ, SESSIONS, session_key(name), CLOCK, EPOCH, MISBEHAVE], args=args)
        if found[0] == "lost":
            raise StateLost
        if found[0] == "stale":
            raise StaleScenarios(int(found[1]))
        if found[0] == "behind":
            raise ScenariosBehind(int(found[1]))
        verdict, seq, clock, levels, wait, fields, standing = found
        admission = None
        if ask is not None:
            admission = Admission(
                verdict, {b.kind: float(v) for b, v in zip(ask.buckets, levels, strict=True)}, float(wait)
            )
        flat = dict(zip(fields[::2], fields[1::2], strict=True))
        opened = Opened(int(seq), SharedSession(name, flat, api_key), admission, float(clock) if clock else None)
        opened.standing = standing or None
        return opened

    @guarded
    async def claim(self, session: Session, rule: str, hit: int) -> int | None:
        field = "h:" + rule
        now = int(await self._claim(keys=[session_key(session.name)], args=[field, hit]))
        taken = hit + 1 if now < 0 else now
        session.hits[rule] = taken
        if isinstance(session, SharedSession):
            session.base_hits[rule] = taken  # what is stored: the commit that follows adds nothing
        return None if now < 0 else now

    @guarded
    async def next_seq(self) -> int:
        return int(await self.client.incr(SEQ))

    def _write(self, pipe: Any, session: Session | None) -> list[tuple[int, str, str]]:
        """Queue the session's changes, the stored objects and generation records on `pipe`; where
        each stored object's write is in it (its owner and id), to check it was not refused."""
        if isinstance(session, SharedSession):
            key = session_key(session.name)
            for command, field, amount in session.changes():
                if command == "HINCRBY":
                    pipe.hincrby(key, field, int(amount))
                else:
                    pipe.hincrbyfloat(key, field, float(amount))
            session.rebase()
        stored = []
        for owner, response_id, blob in self._responses:
            stored.append((len(pipe), owner, response_id))
            args = [response_id, blob, owner, PER_SESSION, STORED_BYTES, OBJECTS, OBJECTS_ORDER]
            queue(pipe, self._keep_object, object_keys(owner), args)  # never over another request's
        self._responses.clear()
        for ids, blob in self._generations:
            for name in ids:
                pipe.set(P + "generation:" + name, blob, ex=GENERATION_TTL_S)
        self._generations.clear()
        for spend in self._spends:
            queue(pipe, self._ledger_add, [LEDGER, LEDGER_ORDER, LEDGER_METERED, LEDGER_SUBSCRIPTION], spent(spend))
        self._spends.clear()
        for shelf, key, blob, count, size in self._shelved:
            queue(pipe, self._shelf_keep, shelf_keys(shelf), [key, blob, count, size])
        self._shelved.clear()
        return stored

    @staticmethod
    def _refused(results: list[Any], stored: list[tuple[int, str, str]]) -> None:
        for at, owner, response_id in stored:
            if not results[at]:
                log.warning("not stored: %s of session %s is kept already, by another request", response_id, owner)

    @guarded
    async def save(self, session: Session) -> None:
        pipe = self.client.pipeline(transaction=False)
        stored = self._write(pipe, session)
        if len(pipe):
            self._refused(await pipe.execute(), stored)

    @guarded
    async def finish(self, session: Session | None, entry: Mapping[str, Any] | None) -> None:
        pipe = self.client.pipeline(transaction=False)
        stored = self._write(pipe, session)
        if entry is not None and self.journal_size:
            blob = orjson.dumps(entry, default=str)
            queue(pipe, self._journal, [JOURNAL], [blob, self.journal_size, ANNOUNCE])
        if len(pipe):
            self._refused(await pipe.execute(), stored)

    @guarded
    async def journal(self, newest: int | None = None) -> list[dict[str, Any]]:
        start = -newest if newest else 0  # entries are pushed as they finish: the newest are at the end
        entries = [orjson.loads(item) for item in await self.client.lrange(JOURNAL, start, -1)]
        entries.sort(key=lambda e: int(e.get("seq") or 0))
        return entries

    @guarded
    async def journal_len(self) -> int:
        return int(await self.client.llen(JOURNAL))

    @guarded
    async def clear_journal(self, session: str | None) -> int:
        if session is None:
            pipe = self.client.pipeline(transaction=True)
            pipe.llen(JOURNAL)
            pipe.delete(JOURNAL)
            count, _ = await pipe.execute()
            return int(count)
        return int(await self._clear(keys=[JOURNAL], args=[session]))

    @guarded
    async def known(self, name: str) -> bool:
        return bool(await self.client.sismember(SESSIONS, name))

    @guarded
    async def hits(self, name: str) -> dict[str, int]:
        fields = await self.client.hgetall(session_key(name))
        return {str(field)[2:]: int(value) for field, value in fields.items() if str(field).startswith("h:")}

    @guarded
    async def total_hits(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for name in map(str, await self.client.smembers(SESSIONS)):
            for rule, count in (await self.hits(name)).items():
                totals[rule] = totals.get(rule, 0) + count
        return totals

    @guarded
    async def reset(self, name: str | None) -> int:
        names = list(map(str, await self.client.smembers(SESSIONS))) if name is None else [name]
        known = [n for n in names if name is None or await self.known(n)]
        if known:
            pipe = self.client.pipeline(transaction=False)
            for n in known:
                queue(pipe, self._drop_objects, object_keys(n), [n])
            pipe.delete(*(session_key(n) for n in known), *(once_key(n) for n in known))
            await pipe.execute()
        return len(known)

    @guarded
    async def spent(self, name: str, api_key: str) -> float:
        return float(await self.client.hget(session_key(name), "s:" + key_id(api_key)) or 0.0)

    @guarded
    async def clock(self) -> float | None:
        value = await self.client.get(CLOCK)
        return float(value) if value else None

    @guarded
    async def set_clock(self, frozen_at: float | None) -> None:
        if frozen_at is None:
            await self.client.delete(CLOCK)
        else:
            await self.client.set(CLOCK, repr(frozen_at))

    @guarded
    async def api_scenarios(self) -> tuple[int, dict[str, str]]:
        pipe = self.client.pipeline(transaction=True)
        pipe.get(VERSION)
        pipe.get(API)
        version, api = await pipe.execute()
        pairs = orjson.loads(api) if api else []
        return int(version or 0), {name: text for name, text in pairs}

    @guarded
    async def stored_version(self) -> int:
        return int(await self.client.get(VERSION) or 0)

    @guarded
    async def reassert_scenarios(self, api: Mapping[str, str]) -> bool:
        args: list[str | int] = [orjson.dumps(list(api.items())).decode(), self.scenarios_version]
        reasserted = bool(await self._reassert(keys=[API, VERSION], args=args))
        if reasserted:
            log.warning(
                "the shared state %s held the control API's scenarios at an older version than this "
                "instance's %d (emptied, or restored from an older snapshot): re-asserted its %d control-API scenarios",
                self.outage.url,
                self.scenarios_version,
                len(api),
            )
        return reasserted

    @guarded
    async def publish_scenarios(self, api: Mapping[str, str]) -> int:
        pipe = self.client.pipeline(transaction=True)
        pipe.set(API, orjson.dumps(list(api.items())))
        pipe.incr(VERSION)
        _, version = await pipe.execute()
        self.scenarios_version = int(version)
        return self.scenarios_version

    def keep_response(self, session: str, response_id: str, blob: bytes) -> None:
        self._responses.append((session, response_id, blob))

    @guarded
    async def response(self, session: str, response_id: str) -> bytes | None:
        found = await self.client.hget(OBJECTS + session, response_id)
        return found.encode() if isinstance(found, str) else found

    @guarded
    async def delete_response(self, session: str, response_id: str) -> bool:
        return bool(await self._drop_object(keys=object_keys(session), args=[response_id, session]))

    def keep_generation(self, ids: tuple[str, ...], blob: bytes) -> None:
        self._generations.append((ids, blob))

    @guarded
    async def generation(self, name: str) -> bytes | None:
        found = await self.client.get(P + "generation:" + name)
        return found.encode() if isinstance(found, str) else found

    def keep_spend(self, spend: Spend) -> None:
        self._spends.append(spend)

    @guarded
    async def ledger(self) -> StoredLedger:
        pipe = self.client.pipeline(transaction=True)
        pipe.zrange(LEDGER_ORDER, 0, -1, withscores=True)
        pipe.hgetall(LEDGER)
        pipe.get(LEDGER_METERED)
        pipe.zrange(LEDGER_SUBSCRIPTION, 0, -1, withscores=True)
        order, fields, metered, times = await pipe.execute()
        return stored_ledger(order, fields, metered, times)

    @guarded
    async def set_ask(self, session: str, blob: bytes | None) -> None:
        await self._set_ask(keys=[MISBEHAVE], args=[session, blob or b"", MISBEHAVING_KEPT])

    @guarded
    async def asks(self) -> dict[str, bytes]:
        return {str(name): str(blob).encode() for name, blob in (await self.client.hgetall(MISBEHAVE)).items()}

    @guarded
    async def once(self, session: str, key: str) -> bool:
        return bool(await self._once(keys=[once_key(session)], args=[key, ONCE_KEPT]))

    def shelf_keep(self, shelf: str, key: str, blob: bytes, count: int, size: int) -> None:
        self._shelved.append((shelf, key, blob, count, size))

    @guarded
    async def shelf_get(self, shelf: str, key: str) -> bytes | None:
        found = await self.client.hget(shelf_keys(shelf)[0], key)
        return found.encode() if isinstance(found, str) else found

    @guarded
    async def shelf_newest(self, shelf: str, offset: int, count: int) -> list[str]:
        if count <= 0:
            return []
        start = max(offset, 0)
        return [str(name) for name in await self.client.zrevrange(shelf_keys(shelf)[1], start, start + count - 1)]

    @guarded
    async def shelf_mark(self, shelf: str, key: str, mark: str | None) -> None:
        objects, _, _, marks, _ = shelf_keys(shelf)
        await self._mark(keys=[objects, marks], args=[key, mark or ""])

    @guarded
    async def shelf_marked(self, shelf: str, key: str) -> str | None:
        found = await self.client.hget(shelf_keys(shelf)[3], key)
        return None if found is None else str(found)

    @guarded
    async def take_call(self, name: str, limit: int, window: float, now: float) -> float | None:
        args: list[str | int] = [
            repr(now - window),
            repr(now),
            limit,
            repr(now) + ":" + os.urandom(6).hex(),
            max(1, int(window) * 2),
        ]
        oldest = await self._take_call(keys=[P + "calls:" + name], args=args)
        return None if oldest is None else float(oldest) + window - now

    @guarded
    async def first_seen(self, name: str, now: float) -> float:
        pipe = self.client.pipeline(transaction=True)
        pipe.set(P + "seen:" + name, repr(now), nx=True)
        pipe.get(P + "seen:" + name)
        _, seen = await pipe.execute()
        return float(seen)

    async def announcements(self) -> AsyncGenerator[bytes | None]:
        """Subscribed on a connection of its own, with no read timeout (an idle subscription sends
        nothing and waits): a dropped one is subscribed again after `RESUBSCRIBE_S`, and says so
        with a None."""
        while True:
            listener: redis.Redis = redis.Redis.from_url(self.url, socket_connect_timeout=self.timeout)
            pubsub = listener.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(ANNOUNCE)
                yield None
                async for message in pubsub.listen():
                    if message["type"] == "message":
                        yield bytes(message["data"])
            except (redis.RedisError, OSError) as exc:
                log.debug("the journal's announcements stopped (%s): subscribing again", exc)
            finally:
                await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                await listener.aclose()
            await asyncio.sleep(RESUBSCRIBE_S)

    @guarded
    async def standings(self, owners: tuple[str, ...]) -> dict[str, dict[str, Standing]]:
        pipe = self.client.pipeline(transaction=False)
        for owner in owners:
            pipe.hgetall(states_key(owner))
        found = await pipe.execute()
        return {owner: _standings(fields) for owner, fields in zip(owners, found, strict=True)}

    @guarded
    async def move_state(self, owner: str, scenario: str, seen: str, to: Standing, now: float) -> str | None:
        found = await self._move_state(
            keys=[states_key(owner), STATE_OWNERS], args=[scenario, seen, repr(now), to.encode(), owner]
        )
        return None if found is None else str(found)

    @guarded
    async def put_state(self, owner: str, scenario: str, standing: Standing | None) -> None:
        if standing is None:
            await self.client.hdel(states_key(owner), scenario)
            return
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(states_key(owner), scenario, standing.encode())
        pipe.sadd(STATE_OWNERS, owner)
        await pipe.execute()

    @guarded
    async def all_states(self) -> dict[str, dict[str, Standing]]:
        owners = sorted(map(str, await self.client.smembers(STATE_OWNERS)))
        pipe = self.client.pipeline(transaction=False)
        for owner in owners:
            pipe.hgetall(states_key(owner))
        found = await pipe.execute() if owners else []
        return {owner: _standings(fields) for owner, fields in zip(owners, found, strict=True) if fields}

    @guarded
    async def reset_states(self, owner: str | None, scenario: str | None) -> int:
        owners = sorted(map(str, await self.client.smembers(STATE_OWNERS))) if owner is None else [owner]
        if not owners:
            return 0
        pipe = self.client.pipeline(transaction=True)
        for name in owners:
            if scenario is None:
                pipe.hlen(states_key(name))
                pipe.delete(states_key(name))
            else:
                pipe.hdel(states_key(name), scenario)
                pipe.exists(states_key(name))
        found = await pipe.execute()
        return sum(int(n) for n in found[::2])
