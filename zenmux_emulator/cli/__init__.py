"""What the command line does besides parsing its words: environment variables, `init`, `wait`,
the start-up lines.

`environment`, `starter` and `wait` import only the standard library, so that `--help`, `--version`,
`init` and `wait` start without loading the server.
"""
