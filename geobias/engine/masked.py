"""Batched masked-token log-probabilities: deduplicated inputs, length buckets, inference mode.

A *query* asks for log P(token_id at position | input_ids) where ``input_ids`` already carries its
[MASK] tokens. Identical inputs are run once (all their queries read from the same forward pass);
inputs are sorted by length and cut into batches so padding is minimal; padding uses the pad
token with attention mask 0.

:func:`masked_log_probs` is the seam every probe goes through: a model handle from
:class:`~geobias.engine.RayEngine` sends the distinct inputs to a Ray actor pool, anything else
(a :class:`~geobias.models.LoadedModel`) runs here, in this process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from geobias._progress import ProgressArg


@dataclass(frozen=True)
class MaskedQuery:
    """log P(``token_id`` at ``position`` | ``input_ids``)."""

    input_ids: tuple[int, ...]
    position: int
    token_id: int


def _progress(total: int, desc: str, enabled: bool):
    from geobias._progress import loop_bar

    return loop_bar(enabled, total, desc)


def distinct_inputs(queries: Sequence[MaskedQuery]) -> tuple[list[tuple[int, ...]], list[list[tuple[int, int, int]]]]:
    """Distinct inputs sorted by length, each with its ``(query index, position, token)`` requests.

    Returns
    -------
    inputs : list of tuple of int
        Distinct ``input_ids``, shortest first (stable: first occurrence breaks ties).
    requests : list of list of (int, int, int)
        ``requests[i]``: the queries that read ``inputs[i]``'s forward pass.
    """
    distinct: dict[tuple[int, ...], list[tuple[int, int, int]]] = {}
    for qi, q in enumerate(queries):
        distinct.setdefault(q.input_ids, []).append((qi, q.position, q.token_id))
    inputs = sorted(distinct, key=len)  # length buckets: neighbours have (nearly) equal length
    return inputs, [distinct[s] for s in inputs]


def forward_log_probs(model, device, pad: int, seqs: Sequence[Sequence[int]],
                      positions: Sequence[Sequence[int]], tokens: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """One padded forward pass over ``seqs``; log P(token | seq) at each requested position.

    Parameters
    ----------
    model : transformers masked LM, in eval mode
    device : torch.device
    pad : int
        Pad token id (attention mask 0 there).
    seqs : sequence of sequence of int, length n
        Input ids (with their [MASK] tokens), one row each.
    positions, tokens : sequence of sequence of int, length n
        For row r, the positions and token ids to read.

    Returns
    -------
    list of ndarray (float64), length n
        ``out[r][k]`` = log-softmax over the vocabulary at ``positions[r][k]`` of row r, read at
        ``tokens[r][k]``; computed in float64 from the logits.
    """
    import torch

    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    att = torch.zeros((len(seqs), width), dtype=torch.long)
    rows, pos, tok = [], [], []
    for r, seq in enumerate(seqs):
        ids[r, : len(seq)] = torch.as_tensor(np.asarray(seq, dtype=np.int64))
        att[r, : len(seq)] = 1
        rows.extend([r] * len(positions[r]))
        pos.extend(int(p) for p in positions[r])
        tok.extend(int(t) for t in tokens[r])
    logits = model(input_ids=ids.to(device), attention_mask=att.to(device)).logits
    # log-softmax in float64 at the queried positions only (cheap; removes the float32
    # rounding of the normaliser over a 30k vocabulary)
    sel = logits[torch.tensor(rows), torch.tensor(pos)].double()
    logp = torch.log_softmax(sel, dim=-1)
    vals = logp[torch.arange(len(tok)), torch.tensor(tok)].double().cpu().numpy()
    out, k = [], 0
    for r in range(len(seqs)):
        n = len(positions[r])
        out.append(vals[k : k + n])
        k += n
    return out


def masked_log_probs(
    lm,
    queries: Sequence[MaskedQuery],
    *,
    batch_size: int = 32,
    progress: ProgressArg = False,
    desc: str = "masked LM",
) -> np.ndarray:
    """Natural-log probabilities of the queried tokens, one forward pass per distinct input.

    Parameters
    ----------
    lm : LoadedModel or RemoteModel
        A masked LM from :func:`geobias.models.load_masked_lm` (runs here), or a
        handle from :meth:`geobias.engine.RayEngine.load_masked_lm` (runs on the Ray actor pool).
    queries : sequence of MaskedQuery
    batch_size : int, default 32
        Distinct inputs per forward pass.
    progress : Progress, bool or None, default False
        Show a progress bar on stderr (local engine).

    Returns
    -------
    ndarray of shape (len(queries),), float64
        log P(token | input) (log-softmax over the vocabulary at that position), in query order.

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
    inputs, requests = distinct_inputs(queries)
    engine = getattr(lm, "engine", None)
    if engine is not None:
        values = engine.run_masked(lm, inputs, requests, batch_size=batch_size)
    else:
        values = []
        pad = lm.pad_token_id
        with torch.inference_mode(), _progress(len(inputs), desc, progress) as bar:
            for b0 in range(0, len(inputs), batch_size):
                b1 = min(b0 + batch_size, len(inputs))
                values += forward_log_probs(
                    lm.model, lm.device, pad, inputs[b0:b1],
                    [[p for _, p, _ in r] for r in requests[b0:b1]],
                    [[t for _, _, t in r] for r in requests[b0:b1]],
                )
                bar.update(b1 - b0)
    for req, vals in zip(requests, values, strict=True):
        out[np.asarray([qi for qi, _, _ in req])] = vals
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
