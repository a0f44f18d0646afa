"""What an unscripted LLM says (§5 defaults), and the emulator's placeholder embeddings."""

from __future__ import annotations

from typing import Any

from zenmux_emulator.core.draft.schema_values import schema_value
from zenmux_emulator.foundation import tokens
from zenmux_emulator.foundation.ids import seed_int, seed_int_then

from . import ids

EMBEDDING_SIZE = 8


def generate_content(seed: int, conversation: bytes, schema: dict[str, Any] | None, json_object: bool) -> str:
    """Placeholder prose seeded by the server seed and the conversation (the messages' JSON, UTF-8) only
    (never the LLM), so an unscripted model is unanimous; a schema value with a json_schema;
    `{"response": …}` for json_object."""
    from faker import Faker

    faker = Faker("en_US")
    faker.seed_instance(seed_int_then(conversation, seed, "objectiveai:default"))
    if schema is not None:
        return ids.jdump(schema_value(faker, schema, "response_format.json_schema.schema"))
    prose = faker.paragraph(nb_sentences=3)
    return ids.jdump({"response": prose}) if json_object else prose


def embedding(model: str, text: str) -> dict[str, Any]:
    """A deterministic EmbeddingsResponse for the text (values in [-1, 1])."""
    vector = [round(seed_int(model, text, i) / 2**63 - 1.0, 6) for i in range(EMBEDDING_SIZE)]
    count = tokens.count(text)
    return {
        "data": [{"embedding": vector, "index": 0, "object": "embedding"}],
        "model": model,
        "object": "list",
        "usage": {"prompt_tokens": count, "total_tokens": count},
    }
