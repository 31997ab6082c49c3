"""CLI subcommands. Every public module here defines ``register(subparsers)``; the CLI finds them itself."""
