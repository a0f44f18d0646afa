"""The video jobs face: ZenMux's native `POST /api/v1/videos` and `GET /api/v1/videos/{id}` (and the
content the finished job links to), and Vertex AI's Veo `:predictLongRunning` / `:fetchPredictOperation`,
answered by jobs that finish on the emulator's clock with a placeholder MP4 (PyAV, the `video` extra)."""
