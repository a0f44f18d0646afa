"""The embeddings face: `POST /api/v1/embeddings` in OpenAI's shape, with vectors made from the text."""
