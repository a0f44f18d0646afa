"""The typed keys of the app's holders, one each, and of a request's journal entry.

Handlers read holders through `request.config_dict`, so the control sub-app sees the main app's."""

from __future__ import annotations

from aiohttp import web

from zenmux_emulator.core.journal.entry import JournalEntry
from zenmux_emulator.core.journal.file import JournalFile
from zenmux_emulator.core.journal.journal import Journal
from zenmux_emulator.core.rules.registry import ScenarioRegistry
from zenmux_emulator.core.rules.watch_status import WatchStatus
from zenmux_emulator.core.state import State
from zenmux_emulator.foundation.clock import Clock
from zenmux_emulator.foundation.waits import Waits
from zenmux_emulator.settings import Settings

SETTINGS = web.AppKey("settings", Settings)
REGISTRY = web.AppKey("registry", ScenarioRegistry)
JOURNAL = web.AppKey("journal", Journal)
JOURNAL_FILE = web.AppKey("journal_file", JournalFile)
"""Set only when `--journal FILE` was given."""
STATE = web.AppKey("state", State)
"""Sessions, journal entries, stored objects, the clock and the scenarios' version: in this
process, or shared (`--state`); chosen once by `create_app`."""
CLOCK = web.AppKey("clock", Clock)
WAITS = web.AppKey("waits", Waits)
"""The faults sessions asked for through the control API (the request path reads them from its `Core`)."""
WATCHER = web.AppKey("watcher", WatchStatus)
"""What the scenario file watcher is doing (`off` without `--watch`)."""

ENTRY = web.RequestKey("journal_entry", JournalEntry)
