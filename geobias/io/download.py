"""Streaming downloads: progress bar on stderr, atomic write, checksum verification.

The file is streamed into a temporary sibling of the destination and renamed into place only
when it is complete (the announced ``Content-Length`` was received) and, when a sha256 is
known, matches it. Any failure removes the temporary file, leaves the destination untouched and
raises :class:`~geobias.errors.DownloadError` saying how to pass a local file instead.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import sys
import urllib.error
import urllib.request
from pathlib import Path

from geobias._progress import ProgressArg
from geobias.errors import DownloadError
from geobias.io.atomic import atomic_write

_CHUNK = 1 << 20


def _how_to_pass_local(name: str | None, local_hint: str | None = None) -> str:
    if local_hint is not None:
        return f"download the file some other way and pass it as a local file: `{local_hint}`"
    install = f"geobias vectors install {name} --from PATH" if name else "geobias vectors install NAME --from PATH"
    return (
        "download the file some other way and pass it as a local file: "
        f"--vectors PATH on any command, or `{install}`"
    )


def download(
    url: str,
    dest: str | os.PathLike,
    *,
    sha256: str | None = None,
    name: str | None = None,
    progress: ProgressArg = True,
    timeout: float = 60.0,
    local_hint: str | None = None,
) -> Path:
    """Download ``url`` to ``dest`` atomically.

    Parameters
    ----------
    url : str
    dest : path-like
        Final file path; its directory is created. Written only on success.
    sha256 : str, optional
        Expected hex SHA-256 of the file; a mismatch is an error (nothing written).
    name : str, optional
        Registry name, used in the error message's ``--from`` hint.
    progress : Progress, bool or None, default True
        Show a progress bar on stderr (only when stderr is a terminal).
    timeout : float, default 60
        Socket timeout in seconds.
    local_hint : str, optional
        The command that installs a local copy instead, for the error message (default: a vector
        source's ``geobias vectors install NAME --from PATH`` or ``--vectors PATH``).

    Returns
    -------
    Path
        ``dest``.

    Raises
    ------
    DownloadError
        Unreachable URL, HTTP error, truncated transfer, checksum mismatch. The message names the
        URL and how to pass a local file instead.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    hint = _how_to_pass_local(name, local_hint)
    digest = hashlib.sha256()
    received = 0
    with atomic_write(dest, what="download") as out:
        try:
            request = urllib.request.Request(url, headers={"User-Agent": "geobias"})
            with urllib.request.urlopen(request, timeout=timeout) as resp:
                length = resp.headers.get("Content-Length")
                total = int(length) if length and length.isdigit() else None
                bar = _progress(total, dest.name) if progress else None
                try:
                    while True:
                        try:
                            block = resp.read(_CHUNK)
                        except http.client.IncompleteRead as exc:
                            block = exc.partial
                            out.write(block)
                            received += len(block)
                            break
                        if not block:
                            break
                        out.write(block)
                        digest.update(block)
                        received += len(block)
                        if bar is not None:
                            bar.update(len(block))
                finally:
                    if bar is not None:
                        bar.close()
        except urllib.error.HTTPError as exc:
            raise DownloadError(f"could not download {url}: HTTP {exc.code} {exc.reason}; {hint}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise DownloadError(f"could not reach {url} ({reason}); {hint}") from None
        # Raising here (inside the atomic write) removes the temporary file; dest is untouched.
        if total is not None and received != total:
            raise DownloadError(
                f"download of {url} was truncated: received {received} of {total} bytes; {hint}"
            )
        if received == 0:
            raise DownloadError(f"download of {url} returned an empty file; {hint}")
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise DownloadError(
                f"checksum mismatch for {url}: sha256 {digest.hexdigest()} but expected {sha256}; "
                f"the file is damaged or changed upstream; {hint}"
            )
    return dest


class _Bar:
    """Minimal wrapper over a rich progress bar on stderr."""

    def __init__(self, total: int | None, label: str):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(f"downloading {label}", total=total)

    def update(self, n: int) -> None:
        self._progress.update(self._task, advance=n)

    def close(self) -> None:
        self._progress.stop()


def _progress(total: int | None, label: str) -> _Bar | None:
    if not sys.stderr.isatty():
        return None
    return _Bar(total, label)
