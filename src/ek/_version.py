"""The package version, kept beside nothing else so any layer may read it."""

__version__ = "0.1.0"
