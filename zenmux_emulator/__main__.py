"""`python -m emulator` runs the command-line interface."""

import sys

from zenmux_emulator.cli.launch import main

sys.exit(main())
