"""One module per command group; each command parses, calls one library function and renders."""
