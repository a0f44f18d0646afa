"""PyYAML's syntax errors said in plain words: what is out of line, and how to write it instead.

PyYAML reports a parser's view (`expected <block end>, but found '<block mapping start>'`); a scenario
author needs to know that a line is indented differently from the lines it belongs with.
"""

from __future__ import annotations

import yaml

_INDENT = ("expected <block end>, but found", "did not find expected key", "did not find expected '-' indicator")


def _at(mark: yaml.Mark | None) -> tuple[int, int] | None:
    return (mark.line + 1, mark.column + 1) if mark is not None else None


def plain_reason(exc: yaml.MarkedYAMLError) -> str:
    """The reason of a YAML syntax error, for someone who writes YAML rather than parses it."""
    problem, context = exc.problem or "", exc.context or ""
    started, found = _at(exc.context_mark), _at(exc.problem_mark)
    if problem.startswith(_INDENT) and started is not None and found is not None:
        what = "list item" if "'-'" in problem or "sequence" in problem else "line"
        if found[1] == started[1] and what == "list item":
            return (
                f"indentation: this list item is in line with the keys of the mapping that begins at line "
                f"{started[0]}; a list under a key is indented further than the key, and another item of "
                "an outer list lines up with that list's '-'"
            )
        if found[1] == started[1]:
            return (
                f"indentation: this line is in line with the '-' of the list that begins at line {started[0]}; "
                f"a key of a list item lines up with the first key after its '- ' (column {started[1] + 2})"
            )
        return (
            f"indentation: this {what} starts at column {found[1]}, but the entries of the block that begins "
            f"at line {started[0]} start at column {started[1]}; line it up with them, or indent it further "
            "under a key that ends with ':' (YAML nests by indentation, with spaces)"
        )
    if problem == "mapping values are not allowed here":
        return (
            "a ': ' where no key can start: if this line is a key, line it up with the keys above (indented "
            "further, it reads as more of the value above); a value that contains ': ' needs quotes "
            "(content: \"note: this\"); or the line above misses its ':'"
        )
    if problem == "could not find expected ':'":
        return "this line is not a 'key: value' pair: add the ':' after the key, or put the value in quotes"
    if "found character '\\t'" in problem:
        return "a tab character: YAML indents with spaces only; replace the tab with spaces"
    if problem.startswith(("expected ',' or '}'", "expected ',' or ']'")) and started is not None:
        closer = "}" if "'}'" in problem else "]"
        return (
            f"the {'{' if closer == '}' else '['}...{closer} opened at line {started[0]} is not closed here: "
            f"a ',' or '{closer}' is missing before this point (put a value that holds ':' or ',' in quotes)"
        )
    reason = problem or context or "invalid YAML"
    if problem and context and started is not None:
        reason += f" ({context} at line {started[0]})"
    return reason
