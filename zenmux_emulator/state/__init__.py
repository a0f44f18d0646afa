"""Per-client state: sessions, their reply-sequence positions, routing counters and gateway counters."""
