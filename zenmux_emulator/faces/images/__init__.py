"""The images face: `POST /api/v1/images/generations` and `/images/edits` in OpenAI's shape, answered
with placeholder images drawn from the prompt's digest (Pillow, the `media` extra)."""
