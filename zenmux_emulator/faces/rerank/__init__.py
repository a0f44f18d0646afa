"""The rerank face: `POST /api/v1/rerank`, scores from the embeddings face's similarity."""
