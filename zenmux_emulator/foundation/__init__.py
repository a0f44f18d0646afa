"""The leaf layer: errors and ZenMux's error catalogue, ids, signatures, tokens, the clock, parsed failures, the waits holder. Imports nothing else of the package."""
