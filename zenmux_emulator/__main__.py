"""`python -m emulator` runs the command-line interface."""

import sys

from zenmux_emulator.launch import main

sys.exit(main())
