"""The speech face: `POST /api/v1/audio/speech`, answered with tones that last as long as the text
would take to read (the `media` extra encodes mp3, flac and opus)."""
