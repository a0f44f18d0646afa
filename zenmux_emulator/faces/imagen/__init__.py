"""The Imagen face: Vertex AI's `:predict` under `/api/vertex-ai`, as google-genai's
`models.generate_images` calls it, answered with placeholder images drawn from the prompt's digest
(Pillow, the `media` extra)."""
