"""An exchange as a scenario reply, per face: what the upstream said, in the reply keys."""
