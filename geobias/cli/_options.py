"""Where the command line writes: the consoles of stdout and stderr, and progress on stderr."""

from __future__ import annotations

import sys
from contextlib import contextmanager

from rich.console import Console

from geobias._progress import Progress as _LibraryProgress

#: The consoles print what they are given as it is: no rich markup (a word such as ``[bold]x``) and
#: no emoji codes (``:smile:``) are read in a word, a file name or a message.
stdout = Console(soft_wrap=True, markup=False, emoji=False)

#: Width of tables written to a pipe or file: wide enough that no table wraps (a table is as
#: wide as its content; ``COLUMNS`` still sets a width when given).
PIPE_WIDTH = 10_000


def table_console() -> Console:
    """The console tables print on: the terminal's width on a terminal; when stdout is a pipe or a
    file, ``COLUMNS`` if set, else :data:`PIPE_WIDTH`, so that no table wraps at 80 columns."""
    import os

    if sys.stdout.isatty():
        return stdout
    columns = os.environ.get("COLUMNS", "")
    return Console(file=sys.stdout, soft_wrap=True, width=int(columns) if columns.isdigit() else PIPE_WIDTH,
                   markup=False, emoji=False)
stderr = Console(stderr=True, soft_wrap=True, markup=False, emoji=False)  # one line per message, never wrapped


def progress_enabled(quiet: bool = False, as_json: bool = False) -> bool:
    """Whether a command shows progress on stderr: only on a terminal, never with ``--quiet``,
    and never when ``--json`` output goes to a pipe or file. ``GEOBIAS_PROGRESS=1`` forces it on
    (tests), ``GEOBIAS_PROGRESS=0`` off."""
    import os

    forced = os.environ.get("GEOBIAS_PROGRESS")
    if quiet:
        return False
    if forced in ("0", "1"):
        return forced == "1"
    if as_json and not sys.stdout.isatty():
        return False
    return stderr.is_terminal


class Progress(_LibraryProgress):
    """The CLI's form of the library's progress reporter: rich stages and bars on stderr.

    ``with p.stage("loading vectors"): ...`` shows a spinner with the stage name;
    ``with p.bar("permutations", total) as advance: advance(k)`` shows a bar with the time left.
    Disabled, both are silent no-ops; notes (files written, warnings) always print.
    """

    def __init__(self, enabled: bool, notes: bool = True):
        self.enabled, self.notes = enabled, notes

    def note(self, text: str) -> None:
        """Print a note on stderr; with ``--json`` only warnings (stdout is the envelope, which
        names the files written)."""
        if self.notes or text.startswith("warning:"):
            stderr.print(text, markup=False, highlight=False, soft_wrap=True)

    def _progress(self, *, bar: bool):
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as RichProgress

        columns = [SpinnerColumn(), TextColumn("{task.description}")]
        if bar:
            columns += [BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
        else:
            columns += [TimeElapsedColumn()]
        console = stderr if stderr.is_terminal else Console(stderr=True, force_terminal=False)
        return RichProgress(*columns, console=console, transient=stderr.is_terminal)

    @contextmanager
    def status(self, description: str):
        """A stage whose description the caller updates: ``with p.status("x") as update: update("y")``."""
        if not self.enabled:
            yield lambda text: None
            return
        with self._progress(bar=False) as p:
            task = p.add_task(description, total=None)
            yield lambda text: p.update(task, description=text)

    @contextmanager
    def bar(self, description: str, total: int):
        if not self.enabled:
            yield lambda n=1: None
            return
        with self._progress(bar=True) as p:
            task = p.add_task(description, total=total)
            yield lambda n=1: p.advance(task, n)


def progress(quiet: bool = False, as_json: bool = False) -> Progress:
    """The progress reporter for a command (see :func:`progress_enabled`)."""
    return Progress(progress_enabled(quiet, as_json), notes=not as_json)
