"""Vector I/O in one room: atomic writes and the one text reader (:mod:`~geobias.io.atomic`),
vector file formats (:mod:`~geobias.io.formats`, with the polars fast path
:mod:`~geobias.io.fastparse`), the spaCy vectors reader (:mod:`~geobias.io.spacy_vectors`),
downloads (:mod:`~geobias.io.download`) and exports of stores (:mod:`~geobias.io.export`).

Nothing is imported here, so ``import geobias.io.atomic`` stays light.
"""
