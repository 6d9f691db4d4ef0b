"""``geobias serve``: the HTTP front door (FastAPI), a third door beside Python and the CLI.

Routes validate, call the same library functions the CLI calls, and answer with the same
envelope ``{command, geobias_version, inputs, result}`` (:func:`geobias.results.envelope`).
Long work becomes a job record in SQLite first, then runs the same ``geobias`` command in a
worker process (:mod:`geobias.service.jobs`).

FastAPI, uvicorn and python-multipart are the ``geobias[serve]`` extra; nothing here is
imported by ``import geobias.cli``.
"""

from geobias.service.config import ServiceConfig

__all__ = ["ServiceConfig", "create_app"]


def create_app(config: ServiceConfig):
    """The FastAPI application for ``config`` (see :mod:`geobias.service.app`)."""
    from geobias.service.app import create_app as _create

    return _create(config)
