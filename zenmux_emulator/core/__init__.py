"""The face-neutral core every request runs through, between a face's parse and its render:
`endpoint.py` takes the steps (authenticate → admit → route → match → outcome → draft);
`gateway/` authenticates, admits and routes, `rules/` and `match/` pick the answer, `draft/` drafts
it, `journal/` records it; `neutral/` is what the core reads of any face's request; `face.py` and
`spec.py` are the seam a face plugs into (the `Face` it implements, the `FaceSpec` it registers).
"""
