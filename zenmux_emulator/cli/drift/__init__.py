"""`zenmux-emulator drift`: the same small probes sent to the real gateway (or a recording) and to
the emulator, their answers compared by shape (shape.py), printed and reported (report.py)."""
