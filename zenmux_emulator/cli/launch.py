"""The `zenmux-emulator` console script (and `python -m emulator`): start-up without the
cyclic garbage collector.

Importing the emulator and loading its scenarios make a few hundred thousand objects that live
as long as the process; the collector would scan them over and over while they are being made,
which cost a fifth of the start-up. `cli.main.serve` moves them out of the collector's way
(`gc.freeze`) and turns collection back on as soon as it listens.

It also leaves pydantic's plugins out (`PYDANTIC_DISABLE_PLUGINS`, unless the environment sets it:
an empty value lets them in): their lookup reads the entry points of every installed distribution
before the first model is built, and the emulator's own models are no plugin's business.
"""

from __future__ import annotations

import gc
import os
import sys


def main() -> int:
    gc.disable()
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from zenmux_emulator.cli.main import main as run

    try:
        code = run()
        sys.stdout.flush()  # here, so that a reader gone early (`init | head`) is met below, not at exit
    except BrokenPipeError:
        # the reader of our output stopped reading: no traceback; Python's documented way to end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code
