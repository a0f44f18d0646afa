"""`url_citation` annotations of a reply's content: the scripted ones, or seeded ones when the
request turns web search on and nothing is scripted.

Annotations are kept in chat's shape (`{type: url_citation, url_citation: {url, title,
start_index, end_index}}`); `end_index` is one past the cited text, as OpenAI counts. A citation
that no longer fits the content (cut by a stop sequence or the token limit) is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from zenmux_emulator.scenario.schema import Annotation

if TYPE_CHECKING:
    from faker import Faker  # imported when first used (see core.draft.draft.Kit)

MAX_DEFAULT_CITATIONS = 2
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


def citation(url: str, title: str, start: int, end: int) -> dict[str, Any]:
    return {
        "type": "url_citation",
        "url_citation": {"end_index": end, "start_index": start, "title": title, "url": url},
    }


def scripted(annotations: Sequence[Annotation], content: str) -> list[dict[str, Any]]:
    """The rule's citations that still fit the (possibly cut) content."""
    return [
        citation(a.url_citation.url, a.url_citation.title, a.url_citation.start_index, a.url_citation.end_index)
        for a in annotations
        if a.url_citation.end_index <= len(content)
    ]


def searched(content: str, faker: Faker) -> list[dict[str, Any]]:
    """Seeded sources for the first sentences of the content (leading spaces left out): each
    sentence cites its own page, titled and addressed by the seeded faker."""
    found = []
    for match in _SENTENCE.finditer(content):
        text = match.group()
        start = match.start() + len(text) - len(text.lstrip())
        if start >= match.end():
            continue
        domain = faker.domain_name()
        slug = "-".join(faker.words(3))
        found.append(citation(f"https://{domain}/{slug}", faker.catch_phrase(), start, match.end()))
        if len(found) == MAX_DEFAULT_CITATIONS:
            break
    return found
