"""geobias: gender bias in the geometry of word representations.

Static vectors (fastText, MUSE, word2vec, GloVe) and contextual ones (BERT-family masked
language models) behind one :class:`~geobias.store.VectorStore` API, with languages that have
grammatical gender treated correctly (Zhou et al. 2019).
"""

from geobias.errors import GeobiasError
from geobias.store import VectorStore

__all__ = ["GeobiasError", "VectorStore", "__version__"]
__version__ = "0.1.0"
