"""Files a rule gives by path (an image or audio file to answer with): read when the scenario file is
loaded, relative to the scenario file's folder and confined to it, at most `MAX_BYTES` each.

A face's reply key takes one as `Annotated[Attached, FileOf(check, kind)]`: the path as written is validated into an
`Attached` (the path and the bytes read), `check` says what is wrong with the bytes, if anything (an
image Pillow cannot open), and a problem is the scenario file's, with its line, naming the path. A
scenario with no folder (one uploaded through the control API) cannot give a file. The rule's reply
serialises it back as the path it gave."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

MAX_BYTES = 16 << 20
"""The most a file given by a rule may hold (16 MiB): it is held in memory with the rules."""

FOLDER_KEY = "folder"
"""Where the validation context names the folder a scenario file's paths are relative to."""


@dataclass(frozen=True, slots=True)
class Attached:
    """A file given by a rule: its path as written, and its bytes as read at load."""

    path: str
    data: bytes = field(repr=False)


def folder_of(filename: str) -> Path | None:
    """The folder a scenario file's paths are relative to: its own, when it is a file on disk."""
    path = Path(filename)
    return path.resolve().parent if path.is_file() else None


def confined(folder: Path, given: str) -> Path:
    """`given`, resolved inside `folder`, or a ValueError: an absolute path, or one that leaves the
    folder (by `..` or a link), is refused."""
    if Path(given).is_absolute():
        raise ValueError(f"file {given!r}: give a path relative to the scenario file's folder, not an absolute one")
    root = folder.resolve()
    path = (root / given).resolve()
    if not path.is_relative_to(root):
        raise ValueError(f"file {given!r} is outside the scenario file's folder")
    return path


_READ: ContextVar[list[Path] | None] = ContextVar("attached_read", default=None)


@contextmanager
def noting() -> Iterator[list[Path]]:
    """Within it, the files `read` reads are listed (the cache of validated files keeps no file that
    gives one: its bytes are read again at every load, so an edited file is seen)."""
    found: list[Path] = []
    token = _READ.set(found)
    try:
        yield found
    finally:
        _READ.reset(token)


def read(given: str, folder: Path | None) -> bytes:
    """The bytes of the file `given` names (relative to `folder`), within `MAX_BYTES`."""
    if folder is None:
        raise ValueError(f"file {given!r}: only a scenario file read from a folder can give a file")
    path = confined(folder, given)
    listed = _READ.get()
    if listed is not None:
        listed.append(path)
    try:
        with path.open("rb") as opened:
            data = opened.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"file {given!r} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ValueError(f"file {given!r} is larger than {MAX_BYTES >> 20} MiB")
    if not data:
        raise ValueError(f"file {given!r} is empty")
    return data


@dataclass(frozen=True, slots=True)
class FileOf:
    """The pydantic metadata of a reply key whose value is a file's path, `Annotated[Attached,
    FileOf(check, kind)]`: validated into an `Attached` once read, `check(data)` the reason the file's
    bytes are not a `kind` (None when they are); serialised (and in the JSON Schema) as its path."""

    check: Callable[[bytes], str | None]
    kind: str

    def validate(self, value: object, info: ValidationInfo) -> Attached:
        if isinstance(value, Attached):
            return value
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"expected the path of {self.kind} file, relative to the scenario file")
        context = info.context if isinstance(info.context, dict) else {}
        folder = context.get(FOLDER_KEY)
        data = read(value, folder if isinstance(folder, Path) else None)
        wrong = self.check(data)
        if wrong is not None:
            raise ValueError(f"file {value!r} is not {self.kind}: {wrong}")
        return Attached(value, data)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.with_info_plain_validator_function(
            self.validate,
            serialization=core_schema.plain_serializer_function_ser_schema(
                _path, return_schema=core_schema.str_schema()
            ),
        )

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {"type": "string", "description": f"the path of {self.kind} file, relative to the scenario file"}


def _path(made: Attached) -> str:
    return made.path
