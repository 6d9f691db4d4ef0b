"""The one progress mechanism of geobias: rich bars on stderr (library side).

The CLI decides whether to show progress (``geobias.cli._options.progress_enabled``: a terminal,
no ``--quiet``, no piped ``--json``); library functions take ``progress: bool`` and draw their bars
with :func:`progress_bar`, a small tqdm-like object, so no code depends on tqdm.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class _Bar:
    def __init__(self, progress, task):
        self._progress, self._task = progress, task

    def update(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def set_postfix(self, refresh: bool = False, **values) -> None:
        """Show ``key=value`` pairs after the bar (tqdm's name, e.g. the running loss)."""
        if self._progress is not None:
            text = " ".join(f"{k}={v}" for k, v in values.items())
            self._progress.update(self._task, postfix=text)


@contextmanager
def progress_bar(total: int | None, desc: str, enabled: bool) -> Iterator[_Bar]:
    """A transient rich progress bar on stderr; a no-op when ``enabled`` is False.

    Yields
    ------
    object with ``update(n)`` and ``set_postfix(**values)``
    """
    if not enabled:
        yield _Bar(None, None)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  TextColumn("{task.fields[postfix]}"), console=console, transient=console.is_terminal) as p:
        yield _Bar(p, p.add_task(desc, total=total, postfix=""))
