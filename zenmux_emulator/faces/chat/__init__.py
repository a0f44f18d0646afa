"""The chat completions face: POST /api/v1/chat/completions and the model catalogue routes."""
