"""The inspector: a page at `/_emulator/ui/` that shows what the emulator received and answered
(a live request list, each request's detail, why it did not match, the rules and their use), made
of static files shipped in the package and the control API; no build step, nothing from another host."""
