"""The request as the core reads it, whatever face it came through (`NeutralRequest`)."""
