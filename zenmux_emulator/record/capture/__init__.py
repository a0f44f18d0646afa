"""What was captured from the upstream (an exchange, its events' pacing): read by the forwarding
above it and by `decode/` beside it, importing neither."""
