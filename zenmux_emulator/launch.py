"""The `zenmux-emulator` console script (and `python -m emulator`): start-up without the
cyclic garbage collector.

Importing the emulator and loading its scenarios make a few hundred thousand objects that live
as long as the process; the collector would scan them over and over while they are being made,
which cost a fifth of the start-up. `cli.serve` moves them out of the collector's way
(`gc.freeze`) and turns collection back on as soon as it listens.
"""

from __future__ import annotations

import gc


def main() -> int:
    gc.disable()
    from zenmux_emulator.cli import main as run

    return run()
