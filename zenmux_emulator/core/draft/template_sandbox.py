"""The template sandbox: Jinja's immutable sandbox, which keeps templates from reaching Python's
internals, with the limits of `template_limits` on every loop, call, operator, filter, `~` and
block of text, so that a template cannot hold the event loop or the memory."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.runtime import Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment

from zenmux_emulator.core.draft.template_limits import (
    before_binop,
    check_arguments,
    check_size,
    check_widths,
    joined,
    made,
    step,
)

MACRO_STEPS = 10
"""A macro call counts as ten steps: it renders a body of its own, some ten times the cost of a call."""
COUNTED = "zenmux_counted"
"""The filter every `for` loop's iterable passes through (added by `bound_tree`)."""


def counted(iterable: Any) -> Iterator[Any]:
    """A loop's iterable, each iteration a step."""
    for item in iterable:
        step()
        yield item


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A builtin filter with its integer arguments, format widths and result checked."""

    @functools.wraps(func)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        step()
        check_arguments((*args, *kwargs.values()))
        if name == "format" and args:
            check_widths(args[0], (*args[1:], *kwargs.values()))
        if name == "replace":
            strings = [a for a in args if isinstance(a, str)]
            if len(strings) >= 3:
                text, old, new = strings[-3:]
                check_size(len(text) + max(0, len(new) - len(old)) * (text.count(old) if old else len(text) + 1))
        return made(func(*args, **kwargs))

    return bounded


class _CodeGenerator(CodeGenerator):
    """Jinja's, with every `~` concatenation's result charged (`MADE`)."""

    def visit_Concat(self, node: nodes.Concat, frame: Frame) -> None:
        self.write("environment.made(")
        super().visit_Concat(node, frame)
        self.write(")")


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox, with the limits above on what a render does."""

    code_generator_class = _CodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%", "//"})
    concat = staticmethod(joined)  # the reply, and every block, macro and `set` block's text

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters = {name: _bounded_filter(name, func) for name, func in self.filters.items()}
        self.filters[COUNTED] = counted
        del self.globals["lipsum"]  # paragraphs of Latin, as many as asked: `fake` is what templates have

    @staticmethod
    def made(value: Any) -> Any:
        return made(value)

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        step()
        before_binop(operator, left, right)
        return made(super().call_binop(context, operator, left, right))

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        step(MACRO_STEPS if isinstance(obj, Macro) else 1)
        check_arguments((*args, *kwargs.values()))
        if getattr(obj, "__name__", None) in ("format", "format_map"):  # the sandbox's wrapper of str.format
            check_widths(getattr(getattr(obj, "__wrapped__", obj), "__self__", None), (*args, *kwargs.values()))
        return made(super().call(context, obj, *args, **kwargs))


def bound_tree(tree: nodes.Template) -> nodes.Template:
    """Every `for` loop's iterable counted: each iteration is a step."""
    for loop in tree.find_all(nodes.For):
        loop.iter = nodes.Filter(loop.iter, COUNTED, [], [], None, None, lineno=loop.lineno)
    return tree
