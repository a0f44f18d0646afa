"""What the client tests share: the Anthropic tests' scenario (a greeting and a weather tool loop),
and where the npm clients are installed."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import REPO
from tests.faces.anthropic.helpers import WEATHER_SCENARIO

SCENARIO = WEATHER_SCENARIO
SONNET = "anthropic/claude-sonnet-4.5"
NODE_SDK = Path(os.environ.get("ZENMUX_TEST_NODE_SDK", REPO / ".venv/node-sdk"))
"""The folder the Node anthropic SDK is installed in (`make test` puts the pinned one there)."""
