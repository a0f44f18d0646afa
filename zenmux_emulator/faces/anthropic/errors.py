"""Anthropic's error types, by the HTTP status they come with."""

from __future__ import annotations

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
"""The `error.type` of each status (another status: `api_error` from 500, else `invalid_request_error`)."""
