"""The wire APIs the emulator speaks, one package each: parse a request into the neutral form, render a draft into the face's bytes."""
