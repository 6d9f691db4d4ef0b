"""``geobias serve``: the HTTP service (FastAPI + uvicorn; extra ``geobias[serve]``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from geobias.cli._app import app


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to bind; anything but loopback needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port.")] = 8000,
    vectors_dir: Annotated[Path | None, typer.Option(
        "--vectors-dir", help="Stores directory (default: the library's vectors directory).")] = None,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Job database, job outputs and upload staging (default: $GEOBIAS_DATA_DIR or "
        "~/.local/share/geobias/service).")] = None,
    workers: Annotated[int, typer.Option(
        "--workers", help="Jobs run at once, each in its own process (the HTTP server is one process, so "
        "open stores are shared).")] = 2,
    token: Annotated[str | None, typer.Option(
        "--token", help="Bearer token required on every request (default: $GEOBIAS_TOKEN).")] = None,
    max_upload_mb: Annotated[int, typer.Option("--max-upload-mb", help="Largest vector-file upload.")] = 1024,
    max_queue: Annotated[int, typer.Option("--max-queue", help="Queued jobs beyond which POST /jobs answers 429.")] = 16,
    max_permutations: Annotated[int, typer.Option("--max-permutations", help="Cap on permutations per request.")] = 1_000_000,
    max_tries: Annotated[int, typer.Option("--max-tries", help=(
        "Times a job is started before it is given up: a job interrupted by a stop of the server runs again "
        "on the next start."))] = 3,
) -> None:
    """Serve the analyses over HTTP: stores, quick analyses, background jobs, HTML reports.

    Example: geobias serve --port 8000
    """
    from geobias.errors import GeobiasError, InputError

    try:
        import uvicorn

        from geobias.service import ServiceConfig, create_app
        from geobias.service.config import default_data_dir, is_loopback
    except ImportError as exc:
        raise GeobiasError(f"the service needs the serve extra: pip install 'geobias[serve]' ({exc.name} is missing)") from None
    from geobias.sources.registry import vectors_dir as default_vectors_dir

    token = token or os.environ.get("GEOBIAS_TOKEN") or None
    if not is_loopback(host) and not token:
        raise InputError(f"--host {host} is not a loopback address: pass --token TOKEN (or set GEOBIAS_TOKEN) "
                         "so that only clients holding it can use the service")
    if not 0 < port < 65536:
        raise InputError(f"--port must be 1-65535; got {port}")
    for value, name in ((max_upload_mb, "--max-upload-mb"), (max_queue, "--max-queue"), (max_permutations, "--max-permutations")):
        if value <= 0:
            raise InputError(f"{name} must be positive; got {value}")
    config = ServiceConfig(
        vectors_dir=vectors_dir or default_vectors_dir(), data_dir=data_dir or default_data_dir(), token=token,
        workers=workers, max_queue=max_queue, max_upload_bytes=max_upload_mb << 20, max_permutations=max_permutations,
        max_tries=max_tries,
    )
    _check_port(host, port)
    config.vectors_dir.mkdir(parents=True, exist_ok=True)
    uvicorn.run(create_app(config), host=host, port=port, workers=1, log_level="warning", access_log=False)


def _check_port(host: str, port: int) -> None:
    """Fail with one line, before anything starts, if ``host:port`` cannot be bound (uvicorn
    would log its own error and exit 3)."""
    import socket

    from geobias.errors import InputError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(f"--host {host}: cannot resolve it ({exc.strerror})") from None
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
