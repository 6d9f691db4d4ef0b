"""Contextual vectors of token spans, batched by length: the forward passes of pooling.

An *item* is ``(input_ids, token_indices)``; its vector is the mean over ``token_indices`` of the
hidden states averaged over ``layers``. :func:`span_vectors` is the seam pooling goes through: a
handle from :class:`~geobias.engine.RayEngine` sends the items to a Ray actor pool, a
:class:`~geobias.models.LoadedModel` runs them here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geobias._progress import ProgressArg


def model_config(lm):
    """The Hugging Face config of a loaded model or of a remote handle."""
    config = getattr(lm, "config", None)
    return config if config is not None else lm.model.config


def forward_span_vectors(model, device, pad: int, seqs: Sequence[Sequence[int]],
                         indices: Sequence[Sequence[int]], layers: Sequence[int]) -> np.ndarray:
    """One padded forward pass; the mean hidden state of each row's span.

    Parameters
    ----------
    model : transformers encoder or masked LM, in eval mode
    device : torch.device
    pad : int
        Pad token id (attention mask 0 there).
    seqs : sequence of sequence of int, length n
    indices : sequence of sequence of int, length n
        Token positions of the span in each row.
    layers : sequence of int
        Hidden-state indices averaged (0 = embeddings).

    Returns
    -------
    ndarray of shape (n, hidden_size), float32
        Row r: mean over ``indices[r]`` of (mean over ``layers`` of the hidden states).
    """
    import torch

    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    att = torch.zeros((len(seqs), width), dtype=torch.long)
    for r, seq in enumerate(seqs):
        ids[r, : len(seq)] = torch.as_tensor(np.asarray(seq, dtype=np.int64))
        att[r, : len(seq)] = 1
    out = model(input_ids=ids.to(device), attention_mask=att.to(device), output_hidden_states=True)
    hs = torch.stack([out.hidden_states[i] for i in layers]).mean(0).float().cpu().numpy()
    return np.stack([hs[r, np.asarray(idx, dtype=np.int64)].mean(axis=0) for r, idx in enumerate(indices)])


def span_vectors(lm, items: Sequence[tuple[Sequence[int], Sequence[int]]], layers: Sequence[int], *,
                 batch_size: int = 32, progress: ProgressArg = False, desc: str = "pooling") -> np.ndarray:
    """Vector of every item (input ids, span token indices), batched by length.

    Parameters
    ----------
    lm : LoadedModel or RemoteModel
        Local model, or a handle from :meth:`geobias.engine.RayEngine.load_encoder`.
    items : sequence of (input_ids, token_indices), length n
    layers : sequence of int
    batch_size : int, default 32
    progress : Progress, bool or None, default False
        Progress bar on stderr (local engine).

    Returns
    -------
    ndarray of shape (n, hidden_size), float32
        In item order.
    """
    import torch

    from geobias.engine.masked import _progress

    dim = int(model_config(lm).hidden_size)
    out = np.empty((len(items), dim), dtype=np.float32)
    if not items:
        return out
    order = sorted(range(len(items)), key=lambda i: len(items[i][0]))
    engine = getattr(lm, "engine", None)
    if engine is not None:
        vecs = engine.run_spans(lm, [items[i] for i in order], list(layers), batch_size=batch_size)
        out[np.asarray(order)] = vecs
        return out
    pad = lm.tokenizer.pad_token_id or 0
    with torch.inference_mode(), _progress(len(items), desc, progress) as bar:
        for b0 in range(0, len(order), batch_size):
            rows = order[b0 : b0 + batch_size]
            out[np.asarray(rows)] = forward_span_vectors(
                lm.model, lm.device, pad, [items[i][0] for i in rows], [items[i][1] for i in rows], layers
            )
            bar.update(len(rows))
    return out
