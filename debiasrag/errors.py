"""Errors that carry a one-line message meant for the user (the CLI prints it and exits 2)."""

from __future__ import annotations


class DebiasragError(Exception):
    """Bad input or state the user can fix; ``str(err)`` is a complete one-line explanation."""


class InputError(DebiasragError, ValueError):
    """Invalid arguments or input data."""


class IndexLoadError(DebiasragError):
    """An index directory is missing, corrupted or was built with another model."""


class IndexWriteError(DebiasragError):
    """An index could not be written (disk full, file too big, permissions); the previous index is unchanged."""
