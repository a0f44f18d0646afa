"""The template sandbox with bounds on time and memory: Jinja's immutable sandbox keeps templates
from reaching Python's internals, this keeps them from holding the event loop or the memory.

A render may take at most `MAX_STEPS` steps (a loop iteration, a call, an operator on numbers or
sequences; a macro call counts ten), make at most `MAX_MADE` characters in all (by operators, filters, calls,
`~` and printed expressions), make no value larger than `MAX_VALUE` characters or items and no
number larger than `MAX_BITS` bits, and give a reply of at most `MAX_REPLY` characters. Sizes are
checked before an operation allocates when the operation says its size up front (`*`, `**`,
padding widths, format widths), after it otherwise. Going past any of them raises `TemplateLimit`,
which names the limit. `template_sandbox` applies them; this module has no Jinja in it, so that
a server without templates never imports Jinja.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

MAX_STEPS = 100_000
MAX_MADE = 16_000_000
MAX_VALUE = 4_000_000
MAX_BITS = 16_384
MAX_REPLY = 4_000_000

_PRINTF_WIDTH = re.compile(r"%[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_BRACE_SPEC = re.compile(r"\{[^{}]*?:([^{}]*)\}")
_NUMBER = re.compile(r"\d+")
_NESTED_SPEC = re.compile(r"\{[^{}]*:[^{}]*\{")


class TemplateLimit(ValueError):
    """A render went past one of the limits; the message names it."""


class _Budget:
    """What one render has used so far."""

    __slots__ = ("made", "steps")

    def __init__(self) -> None:
        self.steps = 0
        self.made = 0


_BUDGET: ContextVar[_Budget] = ContextVar("template_budget")


def budget() -> _Budget:
    """The running render's budget (a fresh one outside `render`, for templates run directly)."""
    try:
        return _BUDGET.get()
    except LookupError:
        fresh = _Budget()
        _BUDGET.set(fresh)
        return fresh


def new_budget() -> object:
    """Start a render's budget; returns the token `end_budget` takes."""
    return _BUDGET.set(_Budget())


def end_budget(token: object) -> None:
    _BUDGET.reset(token)  # type: ignore[arg-type]  # the token `new_budget` returned


def step(cost: int = 1) -> None:
    spent = budget()
    spent.steps += cost
    if spent.steps > MAX_STEPS:
        raise TemplateLimit(f"template limit: {MAX_STEPS:,} steps (loop iterations, calls, operators) per reply")


def _size(value: object) -> int:
    if isinstance(value, (str, list, tuple, dict, bytes)):
        return len(value)
    return 0


def made(value: Any) -> Any:
    """Charge what a value made costs, and check its size; returns it."""
    if isinstance(value, _SIZED):
        size = len(value)
        if size > MAX_VALUE:
            check_size(size)
        spent = _BUDGET.get(None) or budget()
        spent.made += size
        if spent.made > MAX_MADE:
            raise TemplateLimit(f"template limit: {MAX_MADE:,} characters made per reply")
    elif isinstance(value, int) and value.bit_length() > MAX_BITS:
        _check_bits(value.bit_length())
    return value


_SIZED = (str, list, tuple, dict, bytes)


def check_size(size: int) -> None:
    if size > MAX_VALUE:
        raise TemplateLimit(f"template limit: values up to {MAX_VALUE:,} characters or items ({size:,} asked)")


def _check_bits(bits: int) -> None:
    if bits > MAX_BITS:
        raise TemplateLimit(f"template limit: numbers up to {MAX_BITS:,} bits ({bits:,} asked)")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_widths(fmt: object, args: Iterable[Any] = ()) -> None:
    """Padding and precision in a format string (`%100d`, `{:>100}`) within `MAX_VALUE`, and the
    arguments too when the string takes a width from them (`%*d`, `{:{}}`)."""
    if not isinstance(fmt, str):
        return
    if "*" in fmt or _NESTED_SPEC.search(fmt):
        check_arguments(args)
    for match in _PRINTF_WIDTH.finditer(fmt):
        for width in match.groups():
            if width is not None and width.isdigit():
                check_size(int(width))
    for spec in _BRACE_SPEC.findall(fmt):
        for width in _NUMBER.findall(spec):
            check_size(int(width))


def check_arguments(args: Iterable[Any]) -> None:
    """Integer arguments (widths, counts) within `MAX_VALUE`."""
    for value in args:
        if _is_int(value) and abs(value) > MAX_VALUE:
            check_size(abs(value))


def before_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "**" and _is_int(left) and _is_int(right) and right > 0 and abs(left) > 1:
        _check_bits(abs(left).bit_length() * right)
    elif operator == "*":
        if _is_int(left) and _is_int(right):
            _check_bits(left.bit_length() + right.bit_length())
        elif _is_int(right) and _size(left):
            check_size(_size(left) * right)
        elif _is_int(left) and _size(right):
            check_size(_size(right) * left)
    elif operator == "+" and _size(left) and _size(right):
        check_size(_size(left) + _size(right))
    elif operator == "%" and isinstance(left, str):
        check_widths(left)
        if "*" in left:  # a width taken from the arguments (`'%*d' % (width, n)`)
            check_arguments(right if isinstance(right, tuple) else (right,))


def joined(pieces: Iterable[str]) -> str:
    """The reply (or a block, macro or `set` block's text) from the pieces a render yields, within
    `MAX_REPLY`. The pieces are gathered before they are measured: each is a value the budget
    charged already, or the template's own text, so the list holds references, not copies."""
    out = list(pieces)
    if sum(map(len, out)) > MAX_REPLY:
        raise TemplateLimit(f"template limit: replies up to {MAX_REPLY:,} characters (and every block of text)")
    return "".join(out)
