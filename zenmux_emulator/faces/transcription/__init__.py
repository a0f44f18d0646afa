"""The transcription face: `POST /api/v1/audio/transcriptions`, the text a rule gives (or a
deterministic one) timed across the uploaded audio's length."""
