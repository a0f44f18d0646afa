"""ZenMux's native Google Interactions API: `POST /api/v1/interactions` (and its `/api/v1beta1` alias)."""
