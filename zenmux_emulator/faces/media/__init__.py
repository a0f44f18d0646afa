"""What the media faces (images, speech, transcription) share: multipart forms, the lazy import of
the `media` extra's encoders, field readers that take a form's strings, and SSE framing."""
