"""One module per command; each has main() and scripts/NAME runs it."""
