"""The control API fuzzed by schemathesis from the OpenAPI document it serves: every operation,
with valid and invalid parameters and bodies, must answer without a 5xx, with the status codes,
content types and bodies its document describes."""

from __future__ import annotations

import urllib.request

import orjson
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from zenmux_emulator.pytest_plugin.server import EmulatorServer
from zenmux_emulator.server.control.openapi import DOCUMENT

schema = schemathesis.openapi.from_dict(orjson.loads(DOCUMENT))
"""The document the control API serves (the same bytes: `test_the_document_fuzzed_is_the_one_served`)."""


def test_the_document_fuzzed_is_the_one_served(target: EmulatorServer) -> None:
    with urllib.request.urlopen(f"{target.origin}/_emulator/openapi.json", timeout=30) as answer:
        assert answer.read() == DOCUMENT


@schema.parametrize()
@settings(max_examples=60, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_control_api_answers_as_documented(case: schemathesis.Case, target: EmulatorServer) -> None:
    response = case.call(base_url=f"{target.origin}/_emulator")
    case.validate_response(
        response,
        checks=(not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance),
    )
