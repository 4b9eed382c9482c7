"""The package version: the one place it is written (build.py reads it without importing)."""

__version__ = "0.1.0"
