"""The Anthropic headers: `anthropic-version` (Anthropic's dated versions, and any later date) and
the `anthropic-beta` list."""

from __future__ import annotations

import re
from collections.abc import Mapping

from zenmux_emulator.foundation.errors import invalid_params

VERSION = "2023-06-01"
"""The version ZenMux's docs name, and the one its error message asks for."""

VERSIONS = {
    "2023-01-01": "the initial release",
    "2023-06-01": "incremental, named SSE events; no `data: [DONE]`; the one ZenMux's docs name",
    "2026-10-21": "drops temperature, top_p and top_k; the anthropic SDKs' default (Python 2.14, Node 1.14)",
}
"""Every `anthropic-version` Anthropic's versioning page documents, with what it brought. The
emulator answers each with the same Messages API (the version's own removals, such as 2026-10-21's
sampling parameters, are not enforced); a later well-formed date is answered as the newest."""

NEWEST = max(VERSIONS)
_DATE = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\Z")

KNOWN_BETAS = frozenset(
    {
        # the anthropic SDK's AnthropicBetaParam (2.12.0)
        "computer-use-2024-10-22",
        "computer-use-2025-01-24",
        "computer-use-2025-11-24",
        "output-128k-2025-02-19",
        "output-300k-2026-03-24",
        "mcp-client-2025-04-04",
        "mcp-client-2025-11-20",
        "mcp-client-2026-09-15",
        "dev-full-thinking-2025-05-14",
        "interleaved-thinking-2025-05-14",
        "code-execution-2025-05-22",
        "context-1m-2025-08-07",
        "context-management-2025-06-27",
        "model-context-window-exceeded-2025-08-26",
        "fast-mode-2026-02-01",
        "thinking-token-count-2026-05-13",
        "compact-2026-01-12",
        "compact-2026-09-04",
        "structured-outputs-2025-11-13",
        "task-budgets-2026-03-13",
        "thinking-display-updates-2026-08-18",
        "mid-conversation-output-config-2026-07-01",
        "mid-conversation-tool-changes-2026-07-01",
        "thinking-binding-controls-2026-08-01",
        "mid-conversation-system-clear-at-2026-08-21",
        "inline-tools-2026-09-15",
        "message-batches-2024-09-24",
        "prompt-caching-2024-07-31",
        "pdfs-2024-09-25",
        "token-counting-2024-11-01",
        "token-efficient-tools-2025-02-19",
        "files-api-2025-04-14",
        "extended-cache-ttl-2025-04-11",
        "skills-2025-10-02",
        "cache-diagnosis-2026-04-07",
        "advisor-tool-2026-03-01",
        "server-side-fallback-2026-06-01",
        "server-side-fallback-2026-07-01",
        "fallback-credit-2026-06-01",
        "fallback-credit-2026-07-01",
        "agent-memory-2026-07-22",
        "mcp-tunnels-2026-06-22",
        "fine-grained-tool-streaming-2025-05-14",
        "advanced-tool-use-2025-11-20",
        "effort-2025-11-24",
        "web-fetch-2025-09-10",
        # added by 2.14.0 (message threads: the tool runner's default)
        "message-threads-2026-08-12",
        "user-profiles-2026-03-24",
        "user-profiles-2026-08-18",
        "user-profiles-2026-09-04",
        "managed-agents-2026-04-01",
        "dreaming-2026-04-21",
        "ce-plugins-2026-09-01",
        "spend-limit-reads-2026-09-26",
        "telemetry-destinations-2026-08-11",
        "webhooks-2026-10-07",
        "admin-user-sign-out-2026-10-08",
        "analytics-usage-cost-2026-08-24",
        "experimental-claude-tag-2026-10-21",
        "ce-user-management-2026-07-13",
        "ce-claude-code-managed-settings-2026-10-06",
        "efs-2026-10-01",
        "google-managed-data-controls-2026-09-01",
        "user-profiles-billing-2026-10-01",
        # what Claude Code 2.1 sends besides
        "claude-code-20250219",
        "prompt-caching-scope-2026-01-05",
        "mid-conversation-system-2026-04-07",
    }
)

UNSUPPORTED_BETAS = frozenset({"code-execution-2025-08-25"})
"""Betas ZenMux's docs say it does not support."""


def check_version(headers: Mapping[str, str]) -> tuple[str, ...]:
    """`anthropic-version` is required. A documented version is answered as it is; a later
    well-formed date (an SDK newer than the emulator) as the newest known one, with a warning; any
    other value is ZenMux's 400. Anthropic dates its versions and its SDKs move to new ones."""
    version = (headers.get("anthropic-version") or "").strip()
    if not version:
        raise invalid_params("anthropic-version: header is required")
    if version in VERSIONS:
        return ()
    if _DATE.match(version) and version > NEWEST:
        return (f"anthropic-version {version}: newer than the versions the emulator knows; answered as {NEWEST}",)
    raise invalid_params(f"anthropic-version: {version!r} is not a supported version; use {VERSION}")


def betas(headers: Mapping[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The betas asked for (every `anthropic-beta` header, comma lists split), and a warning for
    each the emulator does not know or ZenMux does not support: they are ignored."""
    getall = getattr(headers, "getall", None)
    values = getall("anthropic-beta", []) if getall is not None else [headers.get("anthropic-beta", "")]
    asked = tuple(b.strip() for value in values for b in value.split(",") if b.strip())
    warnings = []
    for beta in asked:
        if beta in UNSUPPORTED_BETAS:
            warnings.append(f"anthropic-beta {beta}: not supported by ZenMux; ignored")
        elif beta not in KNOWN_BETAS:
            warnings.append(f"anthropic-beta {beta}: unknown beta; ignored")
    return asked, tuple(warnings)
