"""What more than one face shares: ZenMux's own request extensions (provider routing, model routing,
reasoning, usage, web search) and the pydantic helpers faces validate with."""
