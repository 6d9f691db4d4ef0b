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
