"""The one training loop of geobias: optimiser steps over shuffled mini-batches.

Both fine-tunings — continued masked-LM pre-training (:mod:`geobias.contextual.finetune`) and
the sentiment classifier (:mod:`geobias.contextual.sentiment_finetune`) — run it with their own
batch loss.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from geobias._progress import ProgressArg, loop_bar


def train_steps(
    optimizer,
    n: int,
    batch_size: int,
    total: int,
    batch_loss: Callable[[Sequence[int]], object | None],
    *,
    generator,
    desc: str,
    progress: ProgressArg = False,
    on_empty_epoch: Callable[[], None] | None = None,
) -> tuple[list[float], int]:
    """Run ``total`` optimiser steps over ``n`` items in shuffled mini-batches of ``batch_size``.

    Each epoch draws a fresh order with ``torch.randperm(n, generator=generator)``; a batch is
    the next ``batch_size`` indices of it. ``batch_loss(indices)`` returns a scalar loss tensor,
    or ``None`` to skip the batch (not counted as a step).

    Parameters
    ----------
    optimizer : torch.optim.Optimizer
    n, batch_size, total : int
    batch_loss : callable
    generator : torch.Generator
        The seeded source of the batch orders (same seed, same steps).
    desc : str
        The progress bar's label.
    progress : bool or geobias._progress.Progress
        Where the bar goes (see :func:`geobias._progress.loop_bar`).
    on_empty_epoch : callable, optional
        Called when a whole epoch skipped every batch (it should raise: no step can ever run).

    Returns
    -------
    (list of float, int)
        The loss of every step, in order, and the number of epochs begun.
    """
    import torch

    losses: list[float] = []
    epoch = 0
    with loop_bar(progress, total, desc) as bar:
        while len(losses) < total:
            epoch += 1
            before = len(losses)
            order = torch.randperm(n, generator=generator).tolist()
            for i in range(0, n, batch_size):
                loss = batch_loss(order[i : i + batch_size])
                if loss is None:
                    continue
                loss.backward()
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
                losses.append(float(loss.detach()))
                bar.update(1)
                bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
                if len(losses) >= total:
                    break
            if len(losses) == before and on_empty_epoch is not None:
                on_empty_epoch()
    return losses, epoch
