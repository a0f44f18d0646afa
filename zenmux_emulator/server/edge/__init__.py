"""What every request meets first and last, whichever handler answers it: the connection limits
(`connections.py`), the middlewares (journal entry, error envelope, access log) and the signposts
(the index, and where a request went wrong).
"""
