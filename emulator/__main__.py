"""`python -m emulator` runs the command-line interface."""

import sys

from emulator.launch import main

sys.exit(main())
