"""A `multipart/form-data` body read into a plain mapping: fields as text, files as `Upload`.

The openai SDK sends image edits and transcriptions this way. The body has already been read (and
bounded) by the endpoint, so this splits its bytes at the boundary; each part's headers are read
with the standard library's `email.message`, which knows RFC 2231's quoting of names and file names.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from email.message import Message
from typing import Any

from zenmux_emulator.foundation.errors import invalid_params


@dataclass(frozen=True, slots=True)
class Upload:
    """One file part."""

    filename: str
    content_type: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def summary(self) -> dict[str, Any]:
        """What the journal keeps of it: its name, type, size and digest, never its bytes."""
        return {
            "filename": self.filename,
            "content_type": self.content_type,
            "bytes": len(self.data),
            "sha256": self.sha256,
        }


def is_form(content_type: str) -> bool:
    return content_type.split(";", 1)[0].strip().lower() == "multipart/form-data"


def _boundary(content_type: str) -> bytes:
    header = Message()
    header["content-type"] = content_type
    boundary = header.get_param("boundary")
    if not isinstance(boundary, str) or not boundary:
        raise invalid_params("Request body is not valid: multipart/form-data without a boundary")
    return boundary.encode("latin-1")


def _part(chunk: bytes) -> tuple[str, str | Upload]:
    head, sep, data = chunk.partition(b"\r\n\r\n")
    if not sep:
        raise invalid_params("Request body is not valid: a multipart part has no headers")
    headers = Message()
    for line in head.decode("utf-8", "replace").split("\r\n"):
        name, colon, value = line.partition(":")
        if colon:
            headers[name.strip()] = value.strip()
    field = headers.get_param("name", header="content-disposition")
    if not isinstance(field, str) or not field:
        raise invalid_params("Request body is not valid: a multipart part has no name")
    filename = headers.get_filename()
    if filename is None:
        return field, data.decode("utf-8", "replace")
    return field, Upload(filename, headers.get_content_type(), data)


def parse_form(raw: bytes, content_type: str) -> dict[str, Any]:
    """The form's parts by name; a name given more than once (`image[]`) keeps a list of them."""
    delimiter = b"\r\n--" + _boundary(content_type)
    chunks = (b"\r\n" + raw).split(delimiter)
    if len(chunks) < 2 or not chunks[-1].startswith(b"--"):
        raise invalid_params("Request body is not valid: the multipart body does not end with its boundary")
    form: dict[str, Any] = {}
    for chunk in chunks[1:-1]:
        name, value = _part(chunk.lstrip(b" \t").removeprefix(b"\r\n"))
        if name in form:
            earlier = form[name]
            form[name] = [*earlier, value] if isinstance(earlier, list) else [earlier, value]
        else:
            form[name] = value
    return form


def journal_view(form: dict[str, Any]) -> dict[str, Any]:
    """The form as the journal shows it: files by their summary."""

    def view(value: Any) -> Any:
        if isinstance(value, Upload):
            return value.summary()
        if isinstance(value, list):
            return [view(v) for v in value]
        return value

    return {name: view(value) for name, value in form.items()}
