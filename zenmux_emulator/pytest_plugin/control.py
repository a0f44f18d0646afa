"""A small blocking client of the control API (`/_emulator/…`), usable from sync and async tests
alike: the server runs on its own loop thread, so a blocking call never starves it."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlencode


class ControlError(RuntimeError):
    """The control API refused a call; carries the HTTP status and ZenMux's error envelope."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        error = body.get("error", {}) if isinstance(body, dict) else {}
        self.type = error.get("type")
        super().__init__(f"control API answered {status}: {error.get('message', body)}")


class Control:
    """`control.call("GET", "/scenarios", session="s")` → the decoded JSON answer."""

    def __init__(self, origin: str, *, timeout: float = 30.0) -> None:
        self.root = f"{origin}/_emulator"
        self.timeout = timeout

    def call(
        self, method: str, path: str, *, json_body: Any = None, yaml_text: str | None = None, **params: str
    ) -> Any:
        url = self.root + path + (f"?{urlencode(params)}" if params else "")
        data, headers = None, {}
        if yaml_text is not None:
            data, headers = yaml_text.encode("utf-8"), {"Content-Type": "application/yaml"}
        elif json_body is not None:
            data, headers = json.dumps(json_body).encode("utf-8"), {"Content-Type": "application/json"}
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
            raise ControlError(exc.code, body) from None
