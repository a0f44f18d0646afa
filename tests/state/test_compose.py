"""deploy/compose.yaml, which Docker cannot run on the test hosts: its services start the emulator
with options the command line accepts, share one Redis, and sit behind the load balancer."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import REPO
from zenmux_emulator.cli.main import build_parser, settings_from

DEPLOY = REPO / "deploy"


def test_every_instance_of_the_compose_file_shares_the_one_redis(monkeypatch: pytest.MonkeyPatch):
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    image = (REPO / "Dockerfile").read_text(encoding="utf-8")
    for variable, value in re.findall(r"(ZENMUX_EMULATOR_\w+)=(\S+)", image):
        monkeypatch.setenv(variable, value)
    instances = [name for name, spec in compose["services"].items() if "build" in spec]
    assert instances == ["emulator-a", "emulator-b"]
    for name in instances:
        spec = compose["services"][name]
        for variable, value in spec["environment"].items():
            monkeypatch.setenv(variable, value)
        program, command, *options = spec["command"]
        assert (program, command) == ("zenmux-emulator", "serve")
        settings = settings_from(build_parser().parse_args([command, *options]))
        assert settings.state == "redis://redis:6379/0"
        assert (settings.host, settings.port, settings.workers) == ("0.0.0.0", 8000, 2)
        assert settings.admin_token  # the control API is reached through the proxy, not from loopback
        assert "redis" in spec["depends_on"]
    upstream = compose["configs"]["nginx"]["content"]
    assert all(f"server {name}:8000;" in upstream for name in instances)
    assert compose["services"]["gateway"]["ports"] == ["8000:8000"]
