"""Benchmark: how fast a finished run's view answers in the web app (``GET /app/jobs/{id}/view``).

The view (the CLI's tables and the plots drawn from the result) is rendered once, when the job
ends, and kept in the job's folder; a page request reads it. Measured on one `geobias serve` with a
small synthetic French store: an MWEAT job is run, then its view is requested ``--rounds`` times
(cached) and, as the baseline in the same run, rendered afresh in this process the way every
request rendered it before (``pages.result_view``, its plots drawn and inlined; the app's view now
loads them by URL). Printed: median and maximum of each, the
ratio, and the cached median against the 0.3 s target, with the load average.

Run: PYTHONPATH=. python benchmarks/bench_webapp_view.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

TARGET_S = 0.3


def main() -> int:
    from _server import ServerProcess, small_french_store, wait_job

    from geobias.service import pages
    from geobias.store import save_store

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "vectors").mkdir()
        save_store(small_french_store(), root / "vectors" / "small-fr")
        with ServerProcess(root / "vectors", root / "data", "--workers", "1") as srv, srv.client(timeout=120) as c:
            job = c.post("/jobs", json={"kind": "mweat", "params": {"lang": "fr", "store": "small-fr",
                                                                  "permutations": 10_000}}).json()
            job = wait_job(c, job["id"], timeout=300)
            assert job["state"] == "done", job
            view = root / "data" / "jobs" / job["id"] / pages.VIEW_CACHE
            deadline = time.monotonic() + 60
            while not view.exists() and time.monotonic() < deadline:  # rendered by the runner when the job ended
                time.sleep(0.05)
            cached = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                r = c.get(f"/app/jobs/{job['id']}/view")
                cached.append(time.perf_counter() - t)
                assert r.status_code == 200
            fresh = []
            artifacts = root / "data" / "jobs" / job["id"] / "artifacts"
            for _ in range(args.rounds):
                t = time.perf_counter()
                pages.result_view(job, artifacts)
                fresh.append(time.perf_counter() - t)
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} (1 min); {args.rounds} rounds each")
    print(f"cached view over HTTP: median {statistics.median(cached) * 1e3:.1f} ms, max {max(cached) * 1e3:.1f} ms")
    print(f"rendered afresh (before): median {statistics.median(fresh) * 1e3:.1f} ms, max {max(fresh) * 1e3:.1f} ms")
    print(f"ratio cached / fresh: {statistics.median(cached) / statistics.median(fresh):.3f}; "
          f"cached median / 0.3 s target: {statistics.median(cached) / TARGET_S:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
