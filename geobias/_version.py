"""The package version (one place, read by :mod:`geobias` and the result envelope of :mod:`geobias.results`)."""

__version__ = "0.2.0"
