"""File plumbing below the vector stores: atomic writes, the one text reader and output-path
checks (:mod:`~geobias.io.atomic`), downloads (:mod:`~geobias.io.download`) and the reader of
spaCy's raw vector tables (:mod:`~geobias.io.spacy_vectors`). Nothing here knows about
:class:`~geobias.store.VectorStore`: the vector file formats, their polars fast path and the
exports of stores live with the stores (:mod:`geobias.store.formats`,
:mod:`geobias.store.fastparse`, :mod:`geobias.store.export`).

Nothing is imported here, so ``import geobias.io.atomic`` stays light.
"""
