"""Reply text: plain strings, or Jinja2 templates run in a sandbox over the request.

Templates see `request` (model, last_user, system, turn, messages, metadata, tools, stream,
tool_result) and `fake`, a seeded faker limited to harmless generators. They cannot reach
Python internals (the sandbox refuses underscore attributes and unsafe calls) or run code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from zenmux_emulator.core.draft.fake import generate
from zenmux_emulator.core.draft.template_limits import end_budget, made, new_budget
from zenmux_emulator.foundation.errors import RequestRejected

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see core.draft.draft.Kit)


def _printable(value: Any) -> Any:
    """Only plain data is printed: an object's repr (with its address) never leaves a template."""
    if isinstance(value, str):
        return made(value)  # printed text counts towards what a render makes
    if value is None or isinstance(value, (int, float, bool)):
        return value
    from jinja2 import Undefined

    if isinstance(value, Undefined):
        return value
    if isinstance(value, (list, tuple)):
        for item in value:
            _printable(item)
        return value
    if isinstance(value, dict):
        for item in value.values():
            _printable(item)
        return value
    raise TypeError(f"a template can print text, numbers, lists and mappings, not {type(value).__name__}")


@cache
def _env() -> Any:
    """The sandbox, made when the first template is compiled: files without templates never
    import Jinja (a tenth of the start-up)."""
    from jinja2 import StrictUndefined

    from zenmux_emulator.core.draft.template_sandbox import BoundedSandbox

    return BoundedSandbox(
        finalize=_printable,
        autoescape=False,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=False,
    )


FAKE_GENERATORS = frozenset(
    {
        "address",
        "catch_phrase",
        "city",
        "color_name",
        "company",
        "country",
        "date",
        "email",
        "first_name",
        "iso8601",
        "job",
        "last_name",
        "name",
        "paragraph",
        "paragraphs",
        "phone_number",
        "pyfloat",
        "random_element",
        "random_int",
        "sentence",
        "sentences",
        "street_address",
        "text",
        "time",
        "url",
        "user_name",
        "uuid4",
        "word",
        "words",
    }
)
_MAX_FAKE_ARG = 1000


def is_template(text: str) -> bool:
    """Whether the text uses template syntax at all (plain text skips rendering)."""
    return "{{" in text or "{%" in text or "{#" in text


class TemplateProblem(ValueError):
    """A template that cannot be compiled: Jinja's message (the loader adds file and line)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def compile_template(source: str) -> Any:
    """Compile once at load; raises `TemplateProblem` for a syntax error, and for a
    `fake.<name>` that is not one of the whitelisted generators."""
    from jinja2 import TemplateSyntaxError, nodes

    from zenmux_emulator.core.draft.template_sandbox import bound_tree

    env = _env()
    try:
        tree = env.parse(source)
        for node in tree.find_all(nodes.Getattr):
            if isinstance(node.node, nodes.Name) and node.node.name == "fake" and node.attr not in FAKE_GENERATORS:
                raise TemplateProblem(
                    f"fake.{node.attr} is not available; use one of {', '.join(sorted(FAKE_GENERATORS))}"
                )
        return env.from_string(bound_tree(tree))
    except TemplateSyntaxError as exc:
        raise TemplateProblem(exc.message or str(exc)) from None
    except (RecursionError, MemoryError, SyntaxError):
        # Jinja parses and compiles recursively: some hundred nested parentheses, operators or blocks
        # exhaust Python's stack, or the nesting of the Python code it generates.
        raise TemplateProblem("the template nests too deeply to compile") from None


class SeededFake:
    """The `fake` a template sees: a whitelist of faker generators with bounded arguments."""

    __slots__ = ("_faker",)

    def __init__(self, faker: Faker) -> None:
        self._faker = faker

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name not in FAKE_GENERATORS:
            raise AttributeError(f"fake.{name} is not available in templates")
        faker = self._faker

        def call(*args: Any, **kwargs: Any) -> Any:
            for value in (*args, *kwargs.values()):
                if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_FAKE_ARG:
                    raise ValueError(f"fake.{name}: arguments above {_MAX_FAKE_ARG} are refused")
            return generate(faker, name, *args, **kwargs)

        return call


def render(template: Any, rule: str, context: Mapping[str, Any]) -> str:
    """Run a compiled template within the limits of `template_limits`; a failure (a limit passed
    included) becomes a 500 naming the rule, never a traceback."""
    budget = new_budget()
    try:
        text = str(template.render(context))
        if not text.isascii():
            text.encode()  # a lone surrogate (from a "\\ud800" literal) cannot be sent as UTF-8
        return text
    except Exception as exc:  # noqa: BLE001  # any failure is the scenario's: named, never a traceback
        raise RequestRejected(500, "emulator_template_error", f"the template of rule {rule!r} failed: {exc}") from None
    finally:
        end_budget(budget)
