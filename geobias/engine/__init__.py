"""Execution engines: where the forward passes of probes and pooling (and audit cells) run.

``local`` (default) runs in this process; ``ray`` runs on a Ray cluster (``geobias[distributed]``).
Both go through the same seam, :func:`masked_log_probs` and :func:`span_vectors`: the model
handle an engine returns says where its weights are. Use an engine as a context manager::

    with make_engine("ray", ray_address="local", threads=1) as engine:
        lm = engine.load_masked_lm("path/to/model", "cpu")
        result = becpro_probe(lm, "en")          # forward passes on the actor pool
"""

from __future__ import annotations

from typing import get_args

from geobias.choices import Engine
from geobias.engine.hidden import model_config, span_vectors
from geobias.engine.local import LocalEngine, available_cores
from geobias.engine.masked import (
    MaskedQuery,
    count_distinct,
    masked_log_probs,
    naive_masked_log_probs,
)
from geobias.errors import InputError

ENGINES = get_args(Engine)


def make_engine(kind: str = "local", *, ray_address: str = "local", threads: int | None = None,
                actors: int | None = None, **ray_options):
    """The engine named by ``--engine`` (a context manager).

    Parameters
    ----------
    kind : {"local", "ray"}, default "local"
    ray_address : str, default "local"
        See :class:`~geobias.engine.ray_engine.RayEngine` (ignored by the local engine).
    threads : int, optional
        torch threads in this process (local) or per actor (Ray).
    actors : int, optional
        Ray actor pool size (Ray only).

    Raises
    ------
    InputError
        Unknown engine; ``actors`` or a non-default address with the local engine.
    """
    if kind == "local":
        if actors is not None:
            raise InputError("--actors needs --engine ray")
        if ray_address != "local":
            raise InputError("--ray-address needs --engine ray")
        return LocalEngine(threads=threads)
    if kind == "ray":
        from geobias.engine.ray_engine import RayEngine

        return RayEngine(ray_address, threads=threads, actors=actors, **ray_options)
    raise InputError(f"--engine must be one of {', '.join(ENGINES)}; got {kind!r}")


__all__ = [
    "ENGINES", "LocalEngine", "MaskedQuery", "available_cores", "count_distinct", "make_engine",
    "masked_log_probs", "model_config", "naive_masked_log_probs", "span_vectors",
]
