"""Settings of one service instance, and the names it accepts."""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from geobias.errors import InputError

# A store or artefact name: a single path component, no leading dot (no '..', no '/').
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def check_name(name: str, what: str = "store name") -> str:
    """Return ``name`` if it is a plain name (letters, digits, '.', '_', '-'; at most 64
    characters; no leading dot), else raise :class:`InputError`: it can never leave the
    directory it is looked up in."""
    if not isinstance(name, str) or not NAME_RE.match(name) or ".." in name:
        raise InputError(
            f"invalid {what} {name!r}: use 1-64 letters, digits, '.', '_' or '-' (not starting with '.', no '..')"
        )
    return name


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def default_data_dir() -> Path:
    """``$GEOBIAS_DATA_DIR``, else ``~/.local/share/geobias/service``."""
    env = os.environ.get("GEOBIAS_DATA_DIR")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "geobias" / "service"


@dataclass
class ServiceConfig:
    """Settings of a service instance.

    Attributes
    ----------
    vectors_dir : Path
        Where stores live (registry installs, stores saved by name, uploads); the service
        sets ``GEOBIAS_VECTORS_DIR`` to it for the library and for job processes.
    data_dir : Path
        Job database (``jobs.sqlite3``), job directories and upload staging.
    token : str or None
        Bearer token every request must carry (``Authorization: Bearer TOKEN``); required
        when binding a non-loopback host.
    workers : int, default 2
        Jobs that run at once (each in its own process); more wait in the queue.
    max_queue : int, default 16
        Queued jobs beyond which ``POST /jobs`` answers 429.
    client_queue : int or None
        Queued jobs one client (as for ``client_slots``) may have (default: half of
        ``max_queue``, at least 1): past its share a client gets 429 + ``Retry-After``
        while others still queue; runners take clients' jobs round-robin.
    max_upload_bytes : int, default 1 GiB
        Largest vector-file upload (413 beyond it).
    max_store_bytes : int or None
        Largest float32 matrix an upload may become (default: ``max_upload_bytes``, which no
        uncompressed file exceeds). A header declaring more, or a compressed ``.npz`` member
        inflating beyond it, is refused with 400 before the matrix is allocated
        (:func:`geobias.io.sizes.check_declared`).
    max_body_bytes : int, default 4 MiB
        Largest JSON request body (413 beyond it).
    max_permutations : int, default 1,000,000
    max_words : int, default 10,000
        Longest inline word list (a dictionary or other text: ten times as many lines).
    max_total_words : int or None
        Words (list entries) in one request in all, whatever the number of lists (default: four
        times ``max_words``). Every size cap is checked on the parsed body before the parameter
        model runs (:mod:`geobias.service.limits`).
    max_k : int, default 1,000
        Largest neighbour count.
    quick_budget : float, default 1e9
        Largest estimated cost of a quick analysis: its permutation partitions times the words of
        its sets, plus its resamples times (words / 2)² / 100 (:func:`geobias.service.commands.check_quick_cost`); above it the
        request is refused with a pointer to ``/jobs`` (a job has no quick budget); see
        ``benchmarks/bench_abuse.py`` for the seconds it stands for.
    max_tries : int, default 3
        Times a job is started before it is given up: a job the server was running when it
        stopped (a crash, a kill) is queued again on the next start, at most ``max_tries - 1``
        times, each interruption recorded in the job.
    allowed_hosts : tuple of str, default ()
        ``Host`` names served besides loopback names and the bound address (``*``: any, which
        requires ``token``).
    bind_host : str or None
        The address the server listens on (its ``Host`` is accepted too).
    quick_workers : int or None
        Quick analyses computed at once (default: the CPU cores this process may use); the
        others wait in a queue of ``max_waiting``, past which a request gets 503 + ``Retry-After``.
    max_waiting : int, default 64
    client_slots : int or None
        Quick analyses one client (its address; with the token's digest where there is a token)
        may compute at once (default: ``quick_workers - 1``, at least 1: a slot is always left
        for the others).
    client_waiting : int or None
        Quick analyses one client may have waiting (default: a quarter of ``max_waiting``, at
        least 1); past its share a client gets 429 + ``Retry-After``, and free slots go
        round-robin across clients (:class:`~geobias.service.http.Admission`).
    quick_threads : bool, default False
        Compute quick analyses in threads of the server process instead of ``quick_workers``
        worker processes (:mod:`geobias.service.quick`).
    body_timeout : float, default 60
        Seconds a request may go without sending any of its body (408 after).
    verify_every : float, default 300
        Seconds between background re-verifications of every store (full sha256; 0: never). A
        store is also hashed in full when a process first opens it
        (:mod:`geobias.service.stores`).
    access_log : bool, default True
        One log line per request (method, path, status, milliseconds, request id).
    prestart : bool, default False
        Start every quick worker process at startup (``geobias serve`` does), in the
        background, instead of on each slot's first request (which then waits 50-150 ms for it).
    """

    vectors_dir: Path
    data_dir: Path
    token: str | None = None
    workers: int = 2
    max_queue: int = 16
    client_queue: int | None = None
    max_upload_bytes: int = 1 << 30
    max_store_bytes: int | None = None
    max_body_bytes: int = 4 << 20
    max_permutations: int = 1_000_000
    max_words: int = 10_000
    max_total_words: int | None = None
    max_k: int = 1000
    quick_budget: float = 1e9
    max_tries: int = 3
    models_dir: Path | None = field(default=None)
    allowed_hosts: tuple[str, ...] = ()
    bind_host: str | None = None
    quick_workers: int | None = None
    max_waiting: int = 64
    quick_threads: bool = False
    body_timeout: float = 60.0
    verify_every: float = 300.0
    client_slots: int | None = None
    client_waiting: int | None = None
    access_log: bool = True
    prestart: bool = False

    def __post_init__(self) -> None:
        self.vectors_dir = Path(self.vectors_dir).expanduser().resolve()
        self.data_dir = Path(self.data_dir).expanduser().resolve()
        if self.models_dir is None:
            self.models_dir = self.data_dir / "models"
        if self.client_queue is None:
            self.client_queue = max(1, self.max_queue // 2)
        if self.client_queue < 1:
            raise InputError(f"client_queue must be at least 1; got {self.client_queue}")
        if self.max_store_bytes is None:
            self.max_store_bytes = self.max_upload_bytes
        if self.max_total_words is None:
            self.max_total_words = 4 * self.max_words
        if self.max_tries < 1:
            raise InputError(f"--max-tries must be at least 1; got {self.max_tries}")
        if self.workers < 1:
            raise InputError(f"--workers must be at least 1; got {self.workers}")
        if self.quick_workers is None:
            self.quick_workers = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
        if self.quick_workers < 1:
            raise InputError(f"--quick-workers must be at least 1; got {self.quick_workers}")
        if self.max_waiting < 0:
            raise InputError(f"--max-waiting must be at least 0; got {self.max_waiting}")
        if self.client_slots is None:
            self.client_slots = max(1, self.quick_workers - 1)
        if self.client_waiting is None:
            self.client_waiting = max(1, self.max_waiting // 4)
        if self.client_slots < 1 or self.client_waiting < 0:
            raise InputError(f"--client-slots must be at least 1 and --client-waiting at least 0; got "
                             f"{self.client_slots} and {self.client_waiting}")
        if not self.verify_every >= 0:
            raise InputError(f"--verify-every must be 0 (never) or positive; got {self.verify_every}")
        if not self.body_timeout > 0:
            raise InputError(f"--body-timeout must be positive; got {self.body_timeout}")
        self.allowed_hosts = tuple(self.allowed_hosts)
        if "*" in self.allowed_hosts and not self.token:
            # any Host: a web page that rebinds its DNS name to this server reaches it; only a
            # token (which such a page does not have) keeps it out
            raise InputError("--allowed-host '*' serves any Host name, so a web page can reach this server "
                             "by rebinding its DNS name: pass --token (or set GEOBIAS_TOKEN) as well")
