"""The System One face: `POST /api/v1/systemone`, ZenMux's Structured Evaluation API."""
