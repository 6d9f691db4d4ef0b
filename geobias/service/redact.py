"""Answers that name stores and artefacts, never the server's paths.

A result, an error message or a store's provenance may carry a path the library wrote into it (a
store's origin file, a job's output folder, a reader's message). :class:`Redactor` rewrites every
string of an answer before it leaves: a path under the vectors directory becomes the store's
name, a path in a job's folder becomes the artefact's name, and any other absolute path its last
component.
"""

from __future__ import annotations

import json
import re
from typing import Any

from geobias.service.config import ServiceConfig

# An absolute POSIX path of two or more components, not part of a URL or a relative path.
_ABS_PATH = re.compile(r"(?<![\w.~:/\-])/(?:[^\s/'\"(),;<>`]+/)+([^\s/'\"(),;<>`]*)")
# JSON text holds a "/" only inside a string token (between tokens: numbers, punctuation,
# true/false/null): the token around a "/" runs from the nearest unescaped quote before it to the
# next one after it (:func:`_slash_tokens`).


class Redactor:
    """Rewrite the server's paths in strings, lists and dicts (JSON values).

    Parameters
    ----------
    config : ServiceConfig
        Its ``vectors_dir``, ``data_dir`` and ``models_dir`` are the known prefixes.

    Examples
    --------
    >>> from pathlib import Path
    >>> r = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
    >>> r.text("saved to /srv/v/my-store; read /home/me/words.txt")
    'saved to my-store; read words.txt'
    """

    #: String tokens of answers outside a job (the store's path in every answer on it, ...) whose
    #: redaction is remembered: an answer's tokens are mostly those of the answers before it.
    SEEN = 1024

    def __init__(self, config: ServiceConfig):
        self.config = config
        self._base = self._prefixes(None)
        self._seen: dict[str, str] = {}

    def _prefixes(self, job_id: str | None) -> list[tuple[str, str]]:
        c = self.config
        pairs = []
        if job_id is not None:
            pairs += [(f"{c.vectors_dir}/.job-{job_id}-", ""), (f"{c.data_dir}/jobs/{job_id}/artifacts/", ""),
                      (f"{c.data_dir}/jobs/{job_id}/artifacts", "artifacts")]
        pairs += [(f"{c.vectors_dir}/", ""), (f"{c.models_dir}/", ""), (f"{c.data_dir}/", "")]
        return pairs

    def text(self, value: str, job_id: str | None = None) -> str:
        """``value`` with every server path replaced by a name."""
        if "/" not in value:
            return value
        for prefix, repl in self._base if job_id is None else self._prefixes(job_id):
            value = value.replace(prefix, repl)
        return _ABS_PATH.sub(lambda m: m.group(1) or "/", value)

    def json(self, value: Any, job_id: str | None = None) -> bytes:
        """``value`` (a JSON value) as the body ``JSONResponse(self(value, job_id))`` sends, byte for
        byte (compact, UTF-8, NaN refused), redacted on the encoded text: the string tokens that
        hold a "/" are found from each "/" (:func:`_slash_tokens`), and only those are decoded,
        redacted and encoded again, where :meth:`__call__` visits every number of a result.

        Raises
        ------
        ValueError
            ``value`` holds a NaN or an infinity (as ``JSONResponse`` does).

        Examples
        --------
        >>> from pathlib import Path
        >>> r = Redactor(ServiceConfig(vectors_dir=Path("/srv/v"), data_dir=Path("/srv/d")))
        >>> r.json({"store": "/srv/v/fr", "scores": [0.5, 1]})
        b'{"store":"fr","scores":[0.5,1]}'
        """
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
        parts, done = [], 0
        for start, end in _slash_tokens(text):
            parts += [text[done:start], self._token(text[start:end], job_id)]
            done = end
        return ("".join(parts) + text[done:]).encode("utf-8") if parts else text.encode("utf-8")

    def _token(self, token: str, job_id: str | None) -> str:
        if job_id is None and (seen := self._seen.get(token)) is not None:
            return seen
        value = json.loads(token)
        redacted = self.text(value, job_id)
        out = token if redacted == value else json.dumps(redacted, ensure_ascii=False)
        if job_id is None and len(token) <= 1024:
            if len(self._seen) >= self.SEEN:
                self._seen.clear()
            self._seen[token] = out
        return out

    def __call__(self, value: Any, job_id: str | None = None) -> Any:
        """``value`` (a JSON value) with :meth:`text` applied to every string, keys included."""
        if isinstance(value, str):
            return self.text(value, job_id)
        if isinstance(value, dict):
            return {self.text(k, job_id) if isinstance(k, str) else k: self(v, job_id) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v, job_id) for v in value]
        return value


def _slash_tokens(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` spans of the string tokens of JSON ``text`` that hold a "/", in order.

    >>> text = json.dumps({"a": "x/y", "b": [1, 'say "q/r"'], "c": "d"})
    >>> [text[s:e] for s, e in _slash_tokens(text)] == ['"x/y"', json.dumps('say "q/r"')]
    True
    """
    spans: list[tuple[int, int]] = []
    at = text.find("/")
    while at != -1:
        start = text.rfind('"', 0, at)
        while _escaped(text, start):
            start = text.rfind('"', 0, start)
        end = text.find('"', at)
        while _escaped(text, end):
            end = text.find('"', end + 1)
        spans.append((start, end + 1))
        at = text.find("/", end + 1)
    return spans


def _escaped(text: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd run of backslashes (is escaped)."""
    n = 0
    while at - n > 0 and text[at - n - 1] == "\\":
        n += 1
    return n % 2 == 1
