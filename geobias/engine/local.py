"""The local engine: models load in this process; torch uses a deliberate number of threads."""

from __future__ import annotations

import os


def available_cores() -> int:
    """CPU cores this process may run on (the affinity mask, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """torch threads of the local engine when ``--threads`` is not given: ``$OMP_NUM_THREADS``
    when set (the user's cap, e.g. on a shared machine), else :func:`available_cores`, never more
    than the cores available (more threads than cores makes torch many times slower)."""
    cores = available_cores()
    try:
        omp = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        omp = 0
    return min(cores, omp) if omp > 0 else cores


def check_threads(threads: int | None) -> None:
    from geobias.errors import InputError

    if threads is not None and threads < 1:
        raise InputError(f"--threads must be >= 1; got {threads}")


class LocalEngine:
    """Run probes and pooling in this process (the default engine).

    Parameters
    ----------
    threads : int, optional
        torch intra-op threads while the engine is open; default :func:`default_threads`
        (``$OMP_NUM_THREADS`` if set, else the cores this process may use). The previous setting
        is restored on exit.

    Examples
    --------
    >>> with LocalEngine(threads=1) as engine:          # doctest: +SKIP
    ...     lm = engine.load_masked_lm("path/to/model", "cpu")
    """

    kind = "local"

    def __init__(self, threads: int | None = None):
        check_threads(threads)
        self.threads = threads

    def __enter__(self) -> LocalEngine:
        try:
            import torch
        except ImportError:  # static-vector audits need no torch
            self._previous = None
            return self
        self._previous = torch.get_num_threads()
        torch.set_num_threads(self.threads or default_threads())
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is not None:
            import torch

            torch.set_num_threads(self._previous)

    def describe(self) -> dict:
        """What ran the command (recorded in the result envelope's inputs)."""
        return {"engine": "local", "torch_threads": self.threads or default_threads()}

    def load_masked_lm(self, name: str, device: str | None = None, *, trust_pickle: bool = False):
        """:func:`geobias.models.load_masked_lm`, in this process."""
        from geobias.models import load_masked_lm

        return load_masked_lm(name, device, trust_pickle=trust_pickle)

    def load_encoder(self, name: str, device: str | None = None, *, trust_pickle: bool = False):
        """:func:`geobias.models.load_encoder`, in this process."""
        from geobias.models import load_encoder

        return load_encoder(name, device, trust_pickle=trust_pickle)

    def map_cells(self, fn, cells: list, *, on_done=None) -> list:
        """``[fn(c) for c in cells]`` (audit grids, atlas cells); ``on_done(i, result)`` after each."""
        out = []
        for i, c in enumerate(cells):
            out.append(fn(c))
            if on_done is not None:
                on_done(i, out[-1])
        return out
