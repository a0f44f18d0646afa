"""`zenmux-emulator catalogue pull` (the gateway's models as a catalogue file `serve --catalogue`
reads) and `catalogue diff` (models added, removed and repriced between two catalogues)."""
