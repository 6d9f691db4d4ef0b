"""A real server in a subprocess, for tests and benchmarks: ``geobias serve`` on a free loopback
port, waited for until it answers; and a small synthetic French store to serve.

A test harness, not library code: tests import it as ``from _server import ...`` (pytest puts
``tests/`` on ``sys.path``); benchmarks put ``tests/`` on ``sys.path`` first."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``geobias serve`` on 127.0.0.1:<free port> with the given directories and options.

    Use as a context manager, or call :meth:`start` / :meth:`stop` (SIGTERM) / :meth:`kill`
    (SIGKILL, as a crash).
    """

    def __init__(self, vectors_dir: Path, data_dir: Path, *extra: str, env: dict | None = None):
        self.vectors_dir, self.data_dir, self.extra = Path(vectors_dir), Path(data_dir), list(extra)
        self.env = dict(os.environ, **(env or {}))
        self.env.setdefault("OMP_NUM_THREADS", "1")
        self.env.setdefault("HF_HUB_OFFLINE", "1")
        self.proc: subprocess.Popen | None = None
        self.port = 0
        self.log = self.data_dir.parent / f"server-{self.data_dir.name}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, timeout: float = 60.0):
        """An ``httpx.Client`` on this server that drops an idle connection after 2 s, before the
        server's own 5 s keep-alive timeout closes it: a request sent on a connection the server is
        closing at that moment gets no answer ("Server disconnected without sending a response")."""
        import httpx

        return httpx.Client(base_url=self.url, timeout=timeout, limits=httpx.Limits(keepalive_expiry=2.0))

    def start(self, timeout: float = 60.0) -> ServerProcess:
        import httpx

        self.port = free_port()
        cmd = [sys.executable, "-c", "from geobias.cli import main; main()", "serve", "--port", str(self.port),
               "--vectors-dir", str(self.vectors_dir), "--data-dir", str(self.data_dir), *self.extra]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                headers = {}
                if "--token" in self.extra:
                    headers["Authorization"] = "Bearer " + self.extra[self.extra.index("--token") + 1]
                # up once it answers (401: a token this harness was not told, e.g. from --token-file)
                if httpx.get(self.url + "/openapi.json", timeout=2, headers=headers).status_code in (200, 401):
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"server did not answer within {timeout} s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def small_french_store(n_nouns: int = 120, n_filler: int = 200, dim: int = 32, seed: int = 0):
    """A small French store with known gender geometry, for service tests (not real vectors).

    Every word of the built-in French lists the quick analyses use (occupations in both forms,
    attribute words, definitional pairs, ``n_nouns`` gendered nouns per gender, WEAT words, and last
    the two-form adjectives) gets a
    random vector; masculine forms and words are pushed along axis 0, feminine ones against it,
    grammatically masculine nouns along axis 1. Returns a :class:`~geobias.store.VectorStore`.
    """
    import numpy as np

    from geobias import wordlists
    from geobias.store import VectorStore

    rng = np.random.default_rng(seed)
    vecs: dict[str, np.ndarray] = {}

    def add(word: str, sem: float = 0.0, gram: float = 0.0) -> None:
        if word and word not in vecs and word != "-" and " " not in word:
            v = rng.standard_normal(dim) * 0.3
            v[0] += sem
            v[1] += gram
            vecs[word] = v

    for occ in wordlists.occupations("fr"):
        add(occ.masculine, 0.3, 0.5)
        add(occ.feminine, -0.2, -0.5)
    male, female = wordlists.attribute_words("fr")
    for w in male:
        add(w, 1.0, 0.5)
    for w in female:
        add(w, -1.0, -0.5)
    for f, m in wordlists.definitional_pairs("fr"):
        add(m, 1.0, 0.5)
        add(f, -1.0, -0.5)
    masc, fem = wordlists.gendered_nouns("fr")
    for w in masc[:n_nouns]:
        add(w, 0.0, 0.8)
    for w in fem[:n_nouns]:
        add(w, 0.0, -0.8)
    for name in wordlists.weat_tests("fr"):
        sets = wordlists.weat_test("fr", name)
        for w in (*sets.X, *sets.Y, *sets.A, *sets.B):
            add(w)
    for i in range(n_filler):
        add(f"mot{i}")
    for adj in wordlists.adjectives("fr"):  # agreement only (the gender-aware RIPA's reference); added last
        add(adj.masculine, 0.0, 0.5)
        add(adj.feminine, 0.0, -0.5)
    words = list(vecs)
    return VectorStore(words, np.stack([vecs[w] for w in words]).astype(np.float32), lang="fr",
                       provenance={"source": "synthetic test store (tests/_server.py)"})


def wait_job(client, job_id: str, timeout: float = 120.0) -> dict:
    """Poll ``GET /jobs/{job_id}`` until the job is done, failed or cancelled; its record."""
    deadline = time.monotonic() + timeout
    job = {"state": "unknown"}
    while time.monotonic() < deadline:
        job = client.get(f"/jobs/{job_id}").json()
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['state']} after {timeout} s")


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (Linux ``/proc``)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
