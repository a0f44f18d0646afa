"""The request journal: bounded in memory, credentials masked, optionally written to a file; verdicts on what a client did wrong."""
