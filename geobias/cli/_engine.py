"""Shared ``--engine``/``--ray-address``/``--threads``/``--actors`` options (probes, pooling, audit)."""

from __future__ import annotations

from typing import Annotated

import typer

from geobias.cli._choices import EngineChoice

EngineOpt = Annotated[
    EngineChoice,
    typer.Option("--engine", help="local (this process) or ray (a Ray cluster; pip install 'geobias[distributed]')."),
]
RayAddress = Annotated[
    str,
    typer.Option(
        "--ray-address",
        help="With --engine ray: local (start a private cluster for this command), auto (the running "
        "cluster of `ray start`) or HOST:PORT.",
    ),
]
Threads = Annotated[
    int | None,
    typer.Option(
        "--threads",
        help="torch threads: in this process (local; default: $OMP_NUM_THREADS, else the cores available) or per Ray actor "
        "(default 1; each actor reserves that many CPUs).",
    ),
]
Actors = Annotated[
    int | None,
    typer.Option("--actors", help="Ray model replicas (default: one per GPU, else cluster CPUs / --threads)."),
]


def open_engine(engine: str, ray_address: str, threads: int | None, actors: int | None = None):
    """The engine for a command (a context manager); what it is goes into the result envelope."""
    from geobias.engine import make_engine

    return make_engine(engine, ray_address=ray_address, threads=threads, actors=actors)


def record_engine(eng) -> None:
    from geobias.results import record_input

    record_input("engine", eng.describe())
