"""Validated scenario files kept across starts: a file whose text, name and faces were read before
is not parsed and validated again (for 10,000 rules that work is most of the start-up).

An entry is the pickled `ScenarioFile` and the outline of where its rules start, in a file named
after the SHA-256 of everything that decides it: the emulator's version, the scenario language's own
source files and the foundation's it validates with (their sizes and times, so that an edited
checkout does not read entries of the old language), the faces' names and traits, the file's name and its text. An entry that cannot be read
(corrupt, truncated, of another Python) is ignored and written again; a folder that cannot be
written leaves the start as it was, only slower. Only files that validate are kept.

The folder (`folder()`): `--cache-dir` (`ZENMUX_EMULATOR_CACHE_DIR`), else
`$XDG_CACHE_HOME/zenmux-emulator`, else `zenmux-emulator-<uid>` in the system's temporary folder.
It is made private to its user (mode 0700); an entry is read only from a folder of that user, since
unpickling runs what the file says.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from contextlib import suppress
from functools import cache
from pathlib import Path

from zenmux_emulator.scenario.faces import FaceNames
from zenmux_emulator.scenario.outline import PositionMap
from zenmux_emulator.scenario.schema import ScenarioFile

VARIABLE = "ZENMUX_EMULATOR_CACHE_DIR"
"""The folder, when `--cache-dir` is not given (the option's own variable)."""
SUFFIX = ".pickle"
Entry = tuple[ScenarioFile, PositionMap]
"""A validated file and where its rules start."""


def folder(given: Path | None = None) -> Path:
    """Where the entries live: `given`, else the variable, else the XDG cache, else the temporary folder."""
    if given is not None:
        return given
    if os.environ.get(VARIABLE):
        return Path(os.environ[VARIABLE])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "zenmux-emulator"
    return Path(tempfile.gettempdir()) / f"zenmux-emulator-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


@cache
def _language() -> bytes:
    """The emulator's version and the scenario language's source files, as they are on disk."""
    from zenmux_emulator.foundation.version import VERSION as made

    package = Path(__file__).resolve().parents[1]
    stats = [
        (str(p.relative_to(package)), p.stat().st_size, p.stat().st_mtime_ns)
        for folder in ("scenario", "foundation")  # the language and what it validates with
        for p in sorted((package / folder).glob("*.py"))
    ]
    return repr((made, stats)).encode()


def _faces(faces: FaceNames) -> bytes:
    """The faces' names and traits, and each face's reply keys model with its source file as it is on disk."""
    replies = [(face, model.__module__, model.__qualname__, _stat(model.__module__)) for face, model in faces.replies]
    return repr((sorted(faces.traits.items()), sorted(faces.models), replies)).encode()


def _stat(module: str) -> tuple[int, int] | None:
    """The size and time of a module's file (None for one without a file: defined in a test, say)."""
    found = getattr(sys.modules.get(module), "__file__", None)
    if found is None:
        return None
    stat = os.stat(found)
    return stat.st_size, stat.st_mtime_ns


class ParseCache:
    """The validated files of one folder, read and written by their key."""

    def __init__(self, where: Path) -> None:
        self.where = where

    def key(self, text: str, filename: str, faces: FaceNames) -> str:
        digest = hashlib.sha256(_language())
        for part in (_faces(faces), filename.encode(), text.encode()):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
        return digest.hexdigest()

    def get(self, key: str) -> Entry | None:
        """The entry, or None when there is none that can be read (whatever is wrong with it)."""
        path = self.where / (key + SUFFIX)
        try:
            if not _private(self.where):
                return None
            entry = pickle.loads(path.read_bytes())
        except Exception:  # noqa: BLE001 - a corrupt or foreign entry is a miss, never a failed start
            return None
        if (
            isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], ScenarioFile)
            and isinstance(entry[1], PositionMap)
        ):
            return entry
        return None

    def put(self, key: str, entry: Entry) -> None:
        """Keep the entry (written whole, then renamed into place); a failure to write is ignored."""
        temporary = None
        try:
            self.where.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _private(self.where):
                return
            handle, temporary = tempfile.mkstemp(dir=self.where, suffix=".part")
            with os.fdopen(handle, "wb") as out:
                out.write(pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(temporary, self.where / (key + SUFFIX))
            temporary = None
        except (OSError, pickle.PicklingError, RecursionError):
            return
        finally:
            if temporary is not None:
                with suppress(OSError):
                    os.unlink(temporary)

    def wanted(self, filename: str) -> bool:
        """Whether a source is kept: scenario files on disk are, the control API's sources are not."""
        return os.path.isfile(filename)


def _private(where: Path) -> bool:
    """Whether the folder is this user's own and no one else may write in it."""
    if not hasattr(os, "getuid"):
        return True
    found = where.stat()
    return found.st_uid == os.getuid() and not found.st_mode & 0o022
