"""The recorded scenario file (`recorded.yaml` in the output folder): rules in the order they were
first recorded, each a plain rule a person can read and edit, written whole after each exchange.

A rule recorded earlier in the same run grows a `replies:` sequence when an identical request
comes again; a rule found in the file from an earlier run is replaced by this run's recording
of the same request (never duplicated)."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Any

import yaml

from zenmux_emulator.foundation.errors import ScenarioError, ScenarioProblem
from zenmux_emulator.record.facts import key_of

FILENAME = "recorded.yaml"
HEADER = """\
# Recorded by `zenmux-emulator record` from {upstream}.
# Each rule matches only the request that produced it; each reply is what the upstream said,
# verbatim (texts are not templates, signatures are the upstream's own). Edit freely.
"""


MEDIA = "media"
"""The folder beside `recorded.yaml` that a raw reply's media is kept in (`raw.body_file`)."""
MEDIA_EXTENSIONS = {
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/ogg": ".ogg",
    "audio/opus": ".opus",
    "audio/flac": ".flac",
    "audio/aac": ".aac",
    "audio/l16": ".pcm",
    "audio/pcm": ".pcm",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/webp": ".webp",
    "video/mp4": ".mp4",
    "application/json": ".json",
    "text/event-stream": ".sse",
}
"""A media file's extension by its content type (others: `.bin`), so a person can open it."""


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line text, lists indented under their key."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def dump(document: dict[str, Any]) -> str:
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 20)


class RecordingFile:
    """The rules of one recording file, kept in memory and written after each change."""

    def __init__(self, folder: Path, upstream: str) -> None:
        self.path = folder / FILENAME
        self.header = HEADER.format(upstream=upstream)
        self.rules: dict[str, dict[str, Any]] = {}
        self._this_run: set[str] = set()
        self._lock = asyncio.Lock()
        if self.path.exists():
            try:
                document = yaml.safe_load(self.path.read_text(encoding="utf-8")) or {}
                rules = document.get("rules") or []
                for rule in rules:
                    self.rules[key_of(rule.get("match") or {})] = rule
            except (yaml.YAMLError, AttributeError, TypeError) as exc:
                raise ScenarioError(
                    [
                        ScenarioProblem(
                            str(self.path),
                            None,
                            None,
                            "rules",
                            (f"the recording file cannot be continued ({exc}); fix it or move it away"),
                        )
                    ]
                ) from None

    async def add(self, name: str, match: dict[str, Any], reply: dict[str, Any]) -> str:
        """Record one exchange and write the file; the rule's name."""
        key = key_of(match)
        async with self._lock:
            rule = self.rules.get(key)
            if rule is not None and key in self._this_run:
                replies = rule.pop("replies", None) or [rule.pop("reply")]
                rule["replies"] = [*replies, reply]
            else:
                self.rules[key] = {"name": rule["name"] if rule else self._unused(name), "match": match, "reply": reply}
                self._this_run.add(key)
            await asyncio.to_thread(self._write)
            return str(self.rules[key]["name"])

    def _unused(self, name: str) -> str:
        """The name, or the name with a number when an edited rule of the file already has it."""
        taken = {str(rule.get("name")) for rule in self.rules.values()}
        candidate, n = name, 1
        while candidate in taken:
            n += 1
            candidate = f"{name}-{n}"
        return candidate

    async def keep_media(self, data: bytes, content_type: str) -> str:
        """Write a reply's media as a file in `media/` beside the recording, named by its digest
        (the same bytes recorded twice are one file); its path relative to the recording's folder."""
        extension = MEDIA_EXTENSIONS.get(content_type.split(";", 1)[0].strip().lower()) or ".bin"
        name = f"{MEDIA}/{hashlib.sha256(data).hexdigest()[:16]}{extension}"
        await asyncio.to_thread(self._write_media, self.path.parent / name, data)
        return name

    @staticmethod
    def _write_media(path: Path, data: bytes) -> None:
        if path.exists() and path.read_bytes() == data:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = self.header + dump({"rules": list(self.rules.values())})
        temporary = self.path.with_name(f".{FILENAME}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.path)
