"""ZenMux's Anthropic face: `/api/anthropic/v1/messages`, `count_tokens` and the models routes."""
