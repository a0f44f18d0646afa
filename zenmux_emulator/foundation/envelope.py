"""ZenMux's error catalogue and the error envelope `{"error": {"code", "type", "message"}}`."""

from __future__ import annotations

from collections.abc import Mapping

import orjson

from zenmux_emulator.foundation.errors import RequestRejected
from zenmux_emulator.foundation.failures import ErrorFailure

# (status, type) -> documented default message; types ZenMux documents without a message get one
# that says what the type means.
CATALOGUE: dict[tuple[int, str], str] = {
    (400, "invalid_params"): "Invalid parameters",
    (402, "insufficient_credit"): "Account overdue. Please top up your balance to continue.",
    (402, "reject_no_credit"): "Credit required. This model requires a positive balance.",
    (
        402,
        "quote_exceeded",
    ): "Subscription quota exceeded for the current window. Upgrade your plan or use a pay-as-you-go key.",
    (403, "access_denied"): "You have no permission to access this resource",
    (403, "safety_check_failed"): "The request was blocked by the provider's safety policy",
    (404, "model_not_available"): "The model is not available in your subscription plan",
    (404, "invalid_model"): "The model does not exist",
    (404, "model_not_supported"): "The model does not support this API",
    (413, "invalid_params"): "Prompt is too long",
    (422, "provider_unprocessable_entity_error"): "The provider could not process the request",
    (429, "rate_limit"): "Rate limit exceeded",
    (500, "internal_server_error"): "Internal server error",
    (500, "provider_api_error"): "The provider API returned an error",
    (500, "provider_error"): "The provider service returned an error",
    (502, "no_provider_available"): "No provider available",
    (520, "provider_internal_server_error"): "Could not connect to the provider",
    (524, "provider_internal_server_error"): "The provider timed out",
}

ACCESS_DENIED = CATALOGUE[(403, "access_denied")]


def error_body(status: int, type: str, message: str) -> bytes:
    """The envelope as bytes; `code` is the HTTP status as a string, as ZenMux sends it."""
    return orjson.dumps({"error": {"code": str(status), "type": type, "message": message}})


# the type a scripted error gets when it names only its status (the first the catalogue lists)
DEFAULT_TYPES: dict[int, str] = {status: kind for status, kind in reversed(list(CATALOGUE))}
DEFAULT_RETRY_AFTER = "1"


def scripted_error(
    status: int, type: str | None, message: str | None, headers: Mapping[str, str] | None
) -> RequestRejected:
    """A scripted error: catalogue type and message unless given; 429 carries Retry-After by default."""
    kind = type or DEFAULT_TYPES.get(status) or ("invalid_params" if status < 500 else "internal_server_error")
    text = message or CATALOGUE.get((status, kind)) or f"The request failed with status {status}"
    sent = dict(headers or {})
    if status == 429 and not any(k.lower() in ("retry-after", "retry-after-ms") for k in sent):
        sent["Retry-After"] = DEFAULT_RETRY_AFTER
    return RequestRejected(status, kind, text, sent)


def failure_error(failure: ErrorFailure) -> RequestRejected:
    """The rejection an error failure (chaos, a control header, a scripted error) answers with."""
    return scripted_error(failure.status, failure.type, failure.message, failure.headers)
