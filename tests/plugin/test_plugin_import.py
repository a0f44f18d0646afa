"""pytest imports the plugin in every run of every project that has the package installed: it
must not bring the server (aiohttp, pydantic, Faker, the app) with it."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
import zenmux_emulator.pytest_plugin.plugin
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in
                        ("aiohttp", "faker", "pydantic", "jinja2", "yaml", "watchfiles", "zenmux_emulator"))))
"""


def test_importing_the_plugin_imports_no_server_module():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60)
    loaded = json.loads(done.stdout)
    heavy = [m for m in loaded if not m.startswith("zenmux_emulator")]
    assert heavy == []
    assert "zenmux_emulator.server.app" not in loaded and "zenmux_emulator.pytest_plugin.server" not in loaded
    assert "zenmux_emulator.pytest_plugin.plugin" in loaded
