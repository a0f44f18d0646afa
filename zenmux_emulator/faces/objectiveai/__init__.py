"""ObjectiveAI Query Completions (seed 004), registered by `spec.py`.

Per request: `wire.parse(body, registry)` → `QueryRequest` (or `QueryRejected`), then
`compute.compute(request, script, Context(...))` → `Outcome`, then `render.unary(outcome)` or
`render.stream_events(outcome)`; `face.py` is the face over them, `routes.py` its routes.
"""
