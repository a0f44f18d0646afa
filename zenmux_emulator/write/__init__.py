"""Writing a reply: JSON, paced SSE with keep-alives and stream faults, transport faults before a response."""
