"""Drafting a reply, face-neutral: scripted or default text, reasoning and its signatures, tool calls, usage, limits."""
