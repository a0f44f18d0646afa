"""Starting the emulator: the console script (`launch.py`), the command line (`main.py`), `--workers`
(`workers.py`), logging (`logs.py`), and what the commands do besides serving: environment variables,
`init`, `wait`, the start-up lines.

`launch`, `environment`, `starter` and `wait` import only the standard library, so that `--help`,
`--version`, `init` and `wait` start without loading the server; this `__init__` imports nothing.
"""
