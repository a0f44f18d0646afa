"""`zenmux-emulator init [DIR]`: the example scenarios shipped in the package, written to a folder.

The examples are the project's `scenarios/` folder: the package's `examples` is a link to it in the
source tree, and a copy of it in the built wheel, so the two never drift.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

SUFFIXES = (".yaml", ".yml")


def examples() -> list[Traversable]:
    """The shipped example scenario files, by name."""
    folder = files("zenmux_emulator") / "examples"
    return sorted((f for f in folder.iterdir() if f.name.endswith(SUFFIXES) and f.is_file()), key=lambda f: f.name)


def init(target: Path, *, force: bool = False) -> int:
    """Write the examples into `target` (created if needed); existing files are kept unless `force`."""
    shipped = examples()
    if target.exists() and not target.is_dir():
        print(f"zenmux-emulator: {target} is a file; name a folder to write the scenarios into", file=sys.stderr)
        return 1
    taken = [f.name for f in shipped if (target / f.name).exists()]
    if taken and not force:
        print(
            f"zenmux-emulator: {target} already has {', '.join(taken)}; nothing written (--force overwrites them)",
            file=sys.stderr,
        )
        return 1
    target.mkdir(parents=True, exist_ok=True)
    for source in shipped:
        (target / source.name).write_bytes(source.read_bytes())
    print(
        f"wrote {len(shipped)} example scenario files to {target}/\n"
        f"next: zenmux-emulator serve --scenarios {target}\n"
        "then: curl -s http://127.0.0.1:8000/api/v1/chat/completions -H 'Authorization: Bearer sk-anything' "
        "-H 'Content-Type: application/json' "
        '-d \'{"model": "openai/gpt-5", "messages": [{"role": "user", "content": "hello there"}]}\''
    )
    return 0
