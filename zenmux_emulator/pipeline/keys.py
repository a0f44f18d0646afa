"""Every typed key the app and its requests carry, in one place."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.journal.entry import JournalEntry
from zenmux_emulator.pipeline.state import EmulatorState

STATE = web.AppKey("state", EmulatorState)
ENTRY = web.RequestKey("journal_entry", JournalEntry)
