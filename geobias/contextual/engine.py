"""Batched masked-token log-probabilities: deduplicated inputs, length buckets, inference mode.

A *query* asks for log P(token_id at position | input_ids) where ``input_ids`` already carries its
[MASK] tokens. Identical inputs are run once (all their queries read from the same forward pass);
inputs are sorted by length and cut into batches so padding is minimal; padding uses the pad
token with attention mask 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MaskedQuery:
    """log P(``token_id`` at ``position`` | ``input_ids``)."""

    input_ids: tuple[int, ...]
    position: int
    token_id: int


def _progress(total: int, desc: str, enabled: bool):
    from geobias._progress import progress_bar

    return progress_bar(total, desc, enabled)


def masked_log_probs(
    lm,
    queries: Sequence[MaskedQuery],
    *,
    batch_size: int = 32,
    progress: bool = False,
    desc: str = "masked LM",
) -> np.ndarray:
    """Natural-log probabilities of the queried tokens, one forward pass per distinct input.

    Parameters
    ----------
    lm : LoadedModel
        A masked LM from :func:`geobias.contextual.models.load_masked_lm`.
    queries : sequence of MaskedQuery
    batch_size : int, default 32
        Distinct inputs per forward pass.
    progress : bool, default False
        Show a progress bar on stderr.

    Returns
    -------
    ndarray of shape (len(queries),), float64
        log P(token | input) (log-softmax over the vocabulary at that position).

    Raises
    ------
    InputError
        ``batch_size`` < 1.
    """
    import torch

    from geobias.errors import InputError

    if batch_size < 1:
        raise InputError(f"batch size must be >= 1; got {batch_size}")
    out = np.empty(len(queries), dtype=np.float64)
    if not queries:
        return out
    # distinct inputs, each with the (query index, position, token) requests it serves
    distinct: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    for qi, q in enumerate(queries):
        distinct.setdefault(q.input_ids, []).append((qi, q.position, q.token_id))
    inputs = sorted(distinct, key=len)  # length buckets: neighbours have (nearly) equal length
    pad = lm.pad_token_id
    with torch.inference_mode(), _progress(len(inputs), desc, progress) as bar:
        for b0 in range(0, len(inputs), batch_size):
            batch = inputs[b0 : b0 + batch_size]
            width = len(batch[-1])
            ids = torch.full((len(batch), width), pad, dtype=torch.long)
            att = torch.zeros((len(batch), width), dtype=torch.long)
            rows, pos, tok, qidx = [], [], [], []
            for r, seq in enumerate(batch):
                ids[r, : len(seq)] = torch.tensor(seq, dtype=torch.long)
                att[r, : len(seq)] = 1
                for qi, p, t in distinct[seq]:
                    rows.append(r)
                    pos.append(p)
                    tok.append(t)
                    qidx.append(qi)
            logits = lm.model(input_ids=ids.to(lm.device), attention_mask=att.to(lm.device)).logits
            # log-softmax in float64 at the queried positions only (cheap; removes the float32
            # rounding of the normaliser over a 30k vocabulary)
            sel = logits[torch.tensor(rows), torch.tensor(pos)].double()
            logp = torch.log_softmax(sel, dim=-1)
            vals = logp[torch.arange(len(tok)), torch.tensor(tok)]
            out[np.asarray(qidx)] = vals.double().cpu().numpy()
            bar.update(len(batch))
    return out


def naive_masked_log_probs(lm, queries: Sequence[MaskedQuery]) -> np.ndarray:
    """Reference: one unpadded forward pass per query, no deduplication (what peers do).

    Returns
    -------
    ndarray of shape (len(queries),), float64
    """
    import torch

    out = np.empty(len(queries), dtype=np.float64)
    with torch.no_grad():
        for i, q in enumerate(queries):
            ids = torch.tensor([q.input_ids], dtype=torch.long, device=lm.device)
            logits = lm.model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits
            out[i] = float(torch.log_softmax(logits[0, q.position].double(), dim=-1)[q.token_id])
    return out


def count_distinct(queries: Sequence[MaskedQuery]) -> int:
    """Number of distinct masked inputs among ``queries`` (forward passes needed)."""
    return len({q.input_ids for q in queries})
