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
        "--token", help="Bearer token required on every request. Visible to other users in `ps`: prefer "
        "$GEOBIAS_TOKEN or --token-file.")] = None,
    token_file: Annotated[Path | None, typer.Option(
        "--token-file", help="Read the bearer token from this file (its first line).")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="A Host name served besides localhost/127.0.0.1/[::1] (repeatable; '*' for any). "
        "Other names are refused, so that a web page cannot reach the server by rebinding its DNS name.")] = None,
    quick_workers: Annotated[int | None, typer.Option(
        "--quick-workers", help="Quick analyses computed at once (default: the CPU cores).")] = None,
    max_waiting: Annotated[int, typer.Option(
        "--max-waiting", help="Quick analyses waiting for a slot beyond which a request gets 503 + Retry-After.")] = 64,
    quick_threads: Annotated[bool, typer.Option(
        "--quick-threads", help="Compute quick analyses in threads of the server process instead of worker "
        "processes (one per --quick-workers).")] = False,
    body_timeout: Annotated[float, typer.Option(
        "--body-timeout", help="Seconds a request may go without sending its body (408 after).")] = 60.0,
    client_slots: Annotated[int | None, typer.Option(
        "--client-slots", help="Quick analyses one client (address, or token and address) computes at once "
        "(default: --quick-workers minus 1, at least 1).")] = None,
    client_waiting: Annotated[int | None, typer.Option(
        "--client-waiting", help="Quick analyses one client may have waiting; past it, 429 + Retry-After "
        "(default: a quarter of --max-waiting).")] = None,
    verify_every: Annotated[float, typer.Option(
        "--verify-every", help="Seconds between background full re-hashes of every store (0: never); each store "
        "is also hashed in full when first opened.")] = 300.0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No start-up lines, no access log.")] = False,
    max_upload_mb: Annotated[int, typer.Option("--max-upload-mb", help="Largest vector-file upload.")] = 1024,
    max_queue: Annotated[int, typer.Option("--max-queue", help="Queued jobs beyond which POST /jobs answers 429.")] = 16,
    client_queue: Annotated[int | None, typer.Option(
        "--client-queue", help="Queued jobs one client may have (default: half of --max-queue).")] = None,
    max_store_mb: Annotated[int | None, typer.Option(
        "--max-store-mb", help="Largest matrix an upload may become (default: --max-upload-mb).")] = None,
    quick_budget: Annotated[float, typer.Option(
        "--quick-budget", help="Largest estimated cost of a quick analysis (partitions × words + resamples × "
        "(words/2)² / 100; 1e9 is under 10 s); above it, submit a job.")] = 1e9,
    max_permutations: Annotated[int, typer.Option("--max-permutations", help="Cap on permutations per request.")] = 1_000_000,
    max_tries: Annotated[int, typer.Option("--max-tries", help=(
        "Times a job is started before it is given up: a job interrupted by a stop of the server runs again "
        "on the next start."))] = 3,
) -> None:
    """Serve the analyses over HTTP: stores, quick analyses, background jobs, HTML reports.

    Example: geobias serve --port 8000
    """
    from geobias.cli._gc import resume
    from geobias.errors import GeobiasError, InputError

    resume()  # a server for hours: the collector runs again (paused for start-up by `main`)

    try:
        import uvicorn

        from geobias.service import ServiceConfig, create_app
        from geobias.service.config import default_data_dir, is_loopback
    except ImportError as exc:
        raise GeobiasError(f"the service needs the serve extra: pip install 'geobias[serve]' ({exc.name} is missing)") from None
    from geobias.sources.registry import vectors_dir as default_vectors_dir

    token, token_source = _token(token, token_file)
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
        max_tries=max_tries, allowed_hosts=tuple(allowed_host or ()), bind_host=host, quick_workers=quick_workers,
        max_waiting=max_waiting, quick_threads=quick_threads, body_timeout=body_timeout, access_log=not quiet,
        verify_every=verify_every, client_slots=client_slots, client_waiting=client_waiting, prestart=True,
        client_queue=client_queue, max_store_bytes=None if max_store_mb is None else max_store_mb << 20,
        quick_budget=quick_budget,
    )
    _check_port(host, port)
    config.vectors_dir.mkdir(parents=True, exist_ok=True)
    app_ = create_app(config)
    _log_to_stderr(quiet)
    if not quiet:
        shown = f"[{host}]" if ":" in host else host
        typer.echo(f"geobias serve: http://{shown}:{port}/app (the web app; API docs at /docs)\n"
                   f"  data directory: {config.data_dir}\n  stores: {config.vectors_dir}\n"
                   f"  token: {token_source}\n  quick analyses: {config.quick_workers} at once "
                   f"({'threads' if config.quick_threads else 'worker processes'}), "
                   f"{config.max_waiting} waiting; jobs: {config.workers} at once", err=True)
    # the parser (httptools, else h11) bounds a request's head; Guard bounds its body (size, time); idle keep-alive closes
    # a SIGTERM cancels what is still in flight after 2 s (the quick workers and jobs are killed at
    # shutdown, jobs queued again at the next start), so the server stops within seconds
    from geobias.service.protocol import MAX_HEAD_BYTES, http_protocol

    uvicorn.run(app_, host=host, port=port, workers=1, log_level="warning", access_log=False, timeout_keep_alive=5,
                http=http_protocol(), h11_max_incomplete_event_size=MAX_HEAD_BYTES, timeout_graceful_shutdown=2)


def _token(token: str | None, token_file: Path | None) -> tuple[str | None, str]:
    """The bearer token and where it came from: --token-file, --token (with a warning: other users
    see it in `ps`), $GEOBIAS_TOKEN, or none."""
    from geobias.errors import InputError

    if token_file is not None:
        try:
            text = token_file.expanduser().read_text(encoding="utf-8").strip().splitlines()
        except OSError as exc:
            raise InputError(f"--token-file {token_file}: {exc.strerror or exc}") from None
        if not text or not text[0].strip():
            raise InputError(f"--token-file {token_file} is empty")
        return text[0].strip(), f"--token-file {token_file}"
    if token:
        typer.echo("geobias serve: warning: --token is visible to every user of this machine in `ps`; "
                   "prefer GEOBIAS_TOKEN or --token-file", err=True)
        return token, "--token (visible in ps)"
    env = os.environ.get("GEOBIAS_TOKEN") or None
    if env:
        return env, "$GEOBIAS_TOKEN"
    return None, "none (anyone who can reach the port may use the service)"


def _log_to_stderr(quiet: bool) -> None:
    """The service's log (access lines, internal errors with their request id) on stderr."""
    import logging

    logger = logging.getLogger("geobias.service")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
    logger.propagate = False


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
