"""The package's version, in the one place `pyproject.toml` reads it from (and `zenmux_emulator.__version__`)."""

VERSION = "0.1.0"
