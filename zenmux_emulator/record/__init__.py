"""Recording real traffic into scenario files: `zenmux-emulator record` and `serve --record-missing`.

A request no rule answers is forwarded to the upstream with the caller's own key; the answer goes
back to the client unchanged (a stream as it arrives) and is written as an ordinary scenario rule
that matches only that request and replies with what the upstream said, verbatim.

    upstream.py   the forwarding: the only address contacted, the answer passed through, captured
    capture/      what was captured: status, headers, body or SSE events with their arrival times
    decode/       an exchange as a reply: errors, raw bytes and timing here, each face's answers
                  read by its own decoder (`FaceSpec.decoder`, `faces/<name>/recorded.py`)
    facts.py      the match a recorded rule carries: the request's face, model, turn, texts
    redact.py     credentials and `--redact` patterns masked in everything written
    store.py      the recorded YAML file: rules kept, identical requests grown into `replies:`
    recorder.py   the forward handler the request path calls for an unmatched request
"""
