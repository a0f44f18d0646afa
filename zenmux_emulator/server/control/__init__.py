"""The control API under /_emulator/: health, scenarios, journal, sessions, clock, and its OpenAPI description."""
