"""The commands: each parses its options, calls one service function (services/) and renders the result."""
