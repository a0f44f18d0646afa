"""Scenario files compiled into the rules the request path uses, the registry that swaps them on reload, and the file watcher."""
