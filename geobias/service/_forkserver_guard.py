"""Imported first by the job fork server (the head of :data:`geobias.service.worker.PRELOAD`):
ties the fork server's life to the service's.

The service names itself in ``GEOBIAS_FORKSERVER_OF`` (its pid) before it starts the fork
server from its main thread; here the fork server asks for ``SIGKILL`` when that parent dies
(``PR_SET_PDEATHSIG``), and exits at once if it already has. Without it a fork server still
importing its preloads when the service is killed lives on, accepts the job request already in
its socket and starts an orphan job that writes beside the next server's try. Elsewhere (the
variable unset) importing this module does nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal

ENV = "GEOBIAS_FORKSERVER_OF"


def _arm() -> None:
    owner = os.environ.pop(ENV, None)
    if owner is None:
        return
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != owner:  # the service died before the signal was armed
        os._exit(1)


_arm()
