"""The one progress mechanism of geobias.

A long run reports through a :class:`Progress` object that its caller hands in: named stages,
stages whose text changes, and bars with a total. The base class ignores everything (Python
callers, tests); the CLI's subclass draws rich spinners and bars on stderr; the service's writes
the latest message into the job's record. Library code never decides how progress is shown.

Every function of geobias that can take long has one ``progress`` parameter of one type,
:data:`ProgressArg`: a reporter, or from Python the shorthand ``True`` (rich bars on stderr, as
:func:`reporter` makes them) or ``False``/``None`` (nothing). A function passes it on unchanged, or
turns it into a reporter with :func:`reporter`; loops (permutation chunks, model batches, training
steps) draw their bars with :func:`loop_bar`, stages with ``reporter(progress).stage(...)`` and
changing stages with ``reporter(progress).status(...)``. No function takes a callback instead.

The reporter also carries cancellation, the other way: :meth:`Progress.cancelled` says whether the
caller wants the run to stop (:class:`CancelFlag` is a reporter with a flag another thread sets).
Every step of a :func:`loop_bar` and every new stage raise :class:`~geobias.errors.Cancelled` when
it is set, and :func:`geobias.commands.execute` hands the same check to the permutation tests
(:func:`geobias.stats.cancellable`), so a run stops within one batch or chunk of partitions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from geobias.errors import Cancelled


class Progress:
    """Where a long run reports what it is doing. This base class shows nothing.

    ``enabled`` tells a command whether anyone is watching (it may then skip work done only to
    report, such as timing a calibration run for a bar's estimate).

    Examples
    --------
    >>> p = Progress()
    >>> with p.stage("loading vectors"):
    ...     pass
    >>> with p.bar("permutations", 10) as advance:
    ...     advance(10)
    """

    enabled: bool = False

    def cancelled(self) -> bool:
        """Whether the caller asks the run to stop (never, here; see :class:`CancelFlag`)."""
        return False

    def check_cancelled(self) -> None:
        """Raise :class:`~geobias.errors.Cancelled` if :meth:`cancelled`."""
        if self.cancelled():
            raise Cancelled("the run was cancelled")

    @contextmanager
    def stage(self, description: str) -> Iterator[None]:
        """A named stage of unknown length."""
        self.check_cancelled()
        with self.status(description):
            yield

    @contextmanager
    def status(self, description: str) -> Iterator[Callable[[str], None]]:
        """A stage whose description the caller updates: ``with p.status("a") as update: update("b")``."""
        yield lambda text: None

    @contextmanager
    def bar(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        """A bar of ``total`` steps: ``with p.bar("x", n) as advance: advance(k)``."""
        yield lambda n=1: None

    def note(self, text: str) -> None:
        """A line for the person watching (a file written, a warning); not part of the result."""


class CancelFlag(Progress):
    """A reporter whose run stops when :meth:`cancel` is called (from any thread): a quick analysis
    whose client went away. It shows what ``inner`` shows (default: nothing).

    Examples
    --------
    >>> flag = CancelFlag()
    >>> flag.cancel()
    >>> with loop_bar(flag, 3, "batches") as bar:
    ...     bar.update()
    Traceback (most recent call last):
    ...
    geobias.errors.Cancelled: the run was cancelled
    """

    def __init__(self, inner: Progress | None = None):
        self.inner = reporter(inner)
        self.enabled = self.inner.enabled
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask the run to stop."""
        self._event.set()

    def cancelled(self) -> bool:
        return self._event.is_set() or self.inner.cancelled()

    @contextmanager
    def status(self, description: str) -> Iterator[Callable[[str], None]]:
        with self.inner.status(description) as update:
            yield update

    @contextmanager
    def bar(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        with self.inner.bar(description, total) as advance:
            def step(n: int = 1) -> None:
                self.check_cancelled()
                advance(n)

            yield step

    def note(self, text: str) -> None:
        self.inner.note(text)


class _Bar:
    """A rich bar (``display``, rich's own ``Progress``) of one task; a no-op without a display."""

    def __init__(self, display, task):
        self._progress, self._task = display, task

    def update(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def set_postfix(self, refresh: bool = False, **values) -> None:
        """Show ``key=value`` pairs after the bar (tqdm's name, e.g. the running loss)."""
        if self._progress is not None:
            text = " ".join(f"{k}={v}" for k, v in values.items())
            self._progress.update(self._task, postfix=text)


#: The one type of every ``progress`` parameter of geobias (see the module docstring).
ProgressArg = Progress | bool | None


class ConsoleProgress(Progress):
    """A reporter drawing transient rich bars and spinners on stderr: what ``progress=True`` means
    for a Python caller (the command line has its own, :mod:`geobias.cli`)."""

    enabled = True

    @contextmanager
    def status(self, description: str) -> Iterator[Callable[[str], None]]:
        from rich.console import Console

        console = Console(stderr=True)
        with console.status(description) as shown:
            yield lambda text: shown.update(text)

    @contextmanager
    def bar(self, description: str, total: int) -> Iterator[Callable[..., None]]:
        with progress_bar(total, description, True) as shown:
            yield shown.update

    def note(self, text: str) -> None:
        import sys

        print(text, file=sys.stderr)


def reporter(progress: ProgressArg) -> Progress:
    """The reporter ``progress`` stands for: itself, :class:`ConsoleProgress` for ``True``, a silent
    :class:`Progress` for ``False`` or ``None``.

    >>> type(reporter(None)).__name__, type(reporter(True)).__name__
    ('Progress', 'ConsoleProgress')
    """
    if isinstance(progress, Progress):
        return progress
    return ConsoleProgress() if progress is True else Progress()


class _Advance:
    """The ``update``/``set_postfix`` face of a :meth:`Progress.bar` callback; each update raises
    :class:`~geobias.errors.Cancelled` once the reporter is cancelled."""

    def __init__(self, advance: Callable[..., None], progress: ProgressArg = None):
        self._advance, self._progress = advance, reporter(progress)

    def update(self, n: int = 1) -> None:
        if self._progress is not None:
            self._progress.check_cancelled()
        self._advance(n)

    def set_postfix(self, refresh: bool = False, **values) -> None:
        """Values after the bar (the running loss); a reporter's bar shows the count only."""


@contextmanager
def loop_bar(progress: ProgressArg, total: int, desc: str) -> Iterator[_Bar | _Advance]:
    """A bar for a loop of ``total`` steps.

    Parameters
    ----------
    progress : Progress, bool or None
        A reporter (the command layer's: rich on the command line, the job record in the
        service) draws it; ``True`` draws a transient rich bar on stderr; ``False``/``None``
        nothing.
    total : int
    desc : str

    Yields
    ------
    object with ``update(n)`` and ``set_postfix(**values)``
    """
    if isinstance(progress, Progress):
        progress.check_cancelled()
        with progress.bar(desc, total) as advance:
            yield _Advance(advance, progress)
        return
    with progress_bar(total, desc, bool(progress)) as bar:
        yield bar


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
