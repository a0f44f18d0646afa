"""What ZenMux does before a model answers: authentication, rate limits and balances, control headers, chaos, catalogue admission, provider routing."""
