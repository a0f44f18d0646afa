"""An import-linter contract: no folder and one of its own subfolders import each other.

`acyclic_siblings` sees cycles among the modules and subfolders of one package, but not a loop
between a package's own modules (its `__init__` and the `.py` files beside it) and a subfolder
below it: `record/recorder.py` importing `record/decode/`, which imported `record/exchange.py`.
This contract forbids that loop for every package below `ancestors` (the ancestors' own modules
are ordered by the layers contract instead): when a package's own modules import one of its
subfolders, nothing in the subfolder may import the package's own modules.

`.importlinter` names it under `contract_types`; import-linter puts the working directory on the
path, so `make lint` finds it here.
"""

from __future__ import annotations

from typing import Any

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


def own_modules(graph: grimp.ImportGraph, package: str) -> set[str]:
    """The package's `__init__` and the modules beside it, without its subfolders."""
    return {package} | {child for child in graph.find_children(package) if not graph.find_children(child)}


def subfolders(graph: grimp.ImportGraph, package: str) -> list[str]:
    return sorted(child for child in graph.find_children(package) if graph.find_children(child))


def imports_between(graph: grimp.ImportGraph, importers: set[str], imported: set[str]) -> list[tuple[str, str]]:
    return sorted((a, b) for a in importers for b in graph.find_modules_directly_imported_by(a) if b in imported)


class FolderCyclesContract(Contract):
    """No loop between a folder's own modules and one of its subfolders, at any depth."""

    type_name = "acyclic_folders"

    ancestors = fields.SetField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        loops: list[dict[str, Any]] = []
        roots = sorted(str(name) for name in self.ancestors)  # type: ignore[attr-defined]
        pending = [folder for root in roots for folder in subfolders(graph, root)]
        while pending:
            package = pending.pop()
            own = own_modules(graph, package)
            for folder in subfolders(graph, package):
                pending.append(folder)
                inside = graph.find_descendants(folder) | {folder}
                down = imports_between(graph, own, inside)
                up = imports_between(graph, inside, own)
                if down and up:
                    loops.append({"package": package, "folder": folder, "down": down[0], "up": up[0]})
        return ContractCheck(kept=not loops, warnings=None, metadata={"loops": loops})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for loop in check.metadata["loops"]:
            output.print_error(f"{loop['package']} and its subfolder {loop['folder']} import each other:")
            output.indent_cursor()
            output.print_error(f"{loop['down'][0]} imports {loop['down'][1]}", bold=False)
            output.print_error(f"{loop['up'][0]} imports {loop['up'][1]}", bold=False)
            output.new_line()
