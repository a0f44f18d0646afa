"""`python -m emulator` runs the command-line interface."""

import sys

from emulator.cli import main

sys.exit(main())
