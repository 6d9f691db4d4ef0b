"""Rendering results for people: rich tables (:mod:`.tables`) and PNG plots (:mod:`.plots`)."""
