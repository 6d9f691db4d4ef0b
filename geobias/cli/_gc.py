"""The command line's start-up and exit without the cyclic garbage collector's passes.

Starting a command allocates some fifty thousand long-lived objects (modules, classes, pydantic
and Typer's schemas) and no garbage worth a pass: the collector's passes over them cost a quick
command (``geobias mweat --lang fr``) about 20 ms, and the interpreter's last full passes at exit
about 40 ms more — together as much as the analysis itself. So:

* :func:`paused` turns the collector off while :func:`geobias.cli.main` parses the command line
  and builds the command, and restores it afterwards (also when the command fails or is only
  asked for its help);
* :func:`resume`, called where a command's own work starts (:func:`geobias.cli._run.invoke`,
  ``geobias serve``), moves every object allocated so far to the permanent generation
  (:func:`gc.freeze`, so that later passes skip them: they live as long as the process) and
  turns the collector back on: a long analysis collects its garbage as usual;
* :func:`at_exit` freezes what is left when the interpreter exits (an :mod:`atexit` handler): its
  final passes would only free memory the process is about to give
  back. Objects in reference cycles then do not get their ``__del__`` at exit, which Python does
  not promise anyway; files the command writes are closed (and atomically renamed) before that.

A command run in-process (``main([...])`` in tests) leaves the collector as it found it:
:func:`paused` unfreezes what :func:`resume` froze.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_state = {"paused": False, "froze": False, "at_exit": False}


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block (unless it is already off), as it was afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    _state.update(paused=True, froze=False)
    try:
        yield
    finally:
        if _state["froze"]:
            gc.unfreeze()  # in-process callers (tests): the next full pass sees these objects again
        _state.update(paused=False, froze=False)
        gc.enable()


def resume() -> None:
    """The command's own work starts: what start-up allocated moves to the permanent generation
    and the collector runs again (nothing to do when :func:`paused` is not in effect)."""
    if _state["paused"] and not gc.isenabled():
        gc.freeze()
        _state["froze"] = True
        gc.enable()


def at_exit() -> None:
    """Skip the interpreter's final collector passes (see the module docstring); registered once."""
    if not _state["at_exit"]:
        import atexit

        atexit.register(gc.freeze)
        _state["at_exit"] = True
