"""The aiohttp server: `app.py` makes the app (its holders, the registered faces' routes, the
middlewares, cleanup contexts); `edge/` is what every request meets first and last; `control/` and
`inspector/` are the sub-apps under `/_emulator/`.
"""
