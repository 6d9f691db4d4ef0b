"""geobias: gender bias in the geometry of word representations.

Static vectors (fastText, MUSE, word2vec, GloVe) and contextual ones (BERT-family masked
language models) behind one :class:`~geobias.store.VectorStore` API, with languages that have
grammatical gender treated correctly (Zhou et al. 2019).
"""

from geobias._version import __version__
from geobias.errors import GeobiasError

__all__ = ["GeobiasError", "VectorStore", "__version__"]


def __getattr__(name: str):
    # Lazy: `import geobias` (and so `geobias --help`) does not import numpy.
    if name == "VectorStore":
        from geobias.store import VectorStore

        return VectorStore
    raise AttributeError(f"module 'geobias' has no attribute {name!r}")
