"""The service under concurrent load vs one `geobias` process per query.

One `geobias serve` on a free loopback port, the real fr-spacy-md store (a small synthetic
store when it is not installed). N concurrent clients (threads, bounded count and duration)
issue a mix of MWEAT (100,000 permutations, the CLI default) and neighbours requests; we print
throughput and p50/p99 latency. Baseline, in the same run: the same queries as separate
`geobias mweat --json` / `geobias neighbors --json` processes, run one after the other (each
pays interpreter start-up, imports and store opening). Printed as ratios; the machine may be
shared, so read the ratios, not the absolute times.

Run: python benchmarks/bench_serve.py [--clients 4] [--seconds 20] [--cli-runs 4]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test harness lives in tests/
from _server import ServerProcess, small_french_store  # noqa: E402

MAX_CLIENTS = 16


def queries(lang_store: dict) -> list[tuple[str, dict, list[str]]]:
    """(route, JSON body, equivalent CLI arguments)."""
    store = lang_store.get("store")
    vec = ["--vectors", store] if store else []
    return [
        ("/mweat", {"lang": "fr", **lang_store}, ["mweat", "--lang", "fr", *vec, "--json"]),
        ("/neighbors", {"lang": "fr", "word": "infirmière", "k": 10, **lang_store},
         ["neighbors", "infirmière", "--lang", "fr", "-k", "10", *vec, "--json"]),
    ]


def library_mweat_seconds(vectors: Path, name: str) -> float:
    """Median time of the same MWEAT as a library call on an already-open store."""
    from geobias import wordlists
    from geobias.metrics import mweat
    from geobias.store import load_store

    store = load_store(vectors / name)
    occ, (male, female) = wordlists.occupations("fr"), wordlists.attribute_words("fr")
    mweat(store, occ, male, female, oov="ignore")  # warm (unit vectors)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        mweat(store, occ, male, female, oov="ignore")
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--cli-runs", type=int, default=4, help="CLI processes per query kind for the baseline")
    args = ap.parse_args()
    clients = max(1, min(args.clients, MAX_CLIENTS))
    seconds = max(1.0, min(args.seconds, 120.0))

    from geobias.sources import registry

    tmp = Path(tempfile.mkdtemp(prefix="geobias-bench-serve-"))
    if registry.is_installed("fr-spacy-md"):
        vectors, extra, label = registry.vectors_dir(), {}, "fr-spacy-md (20,000 × 300)"
    else:
        from geobias.store import save_store

        vectors = tmp / "vectors"
        vectors.mkdir()
        save_store(small_french_store(), vectors / "small-fr")
        extra, label = {"store": "small-fr"}, "synthetic small-fr (fr-spacy-md not installed)"
    qs = queries(extra)
    env_cli = {"GEOBIAS_VECTORS_DIR": str(vectors)}

    print(f"store: {label}; {clients} concurrent clients for {seconds:.0f} s; machine may be shared")
    with ServerProcess(vectors, tmp / "data", "--workers", "1") as srv:
        with httpx.Client(base_url=srv.url, timeout=120) as c:
            t0 = time.perf_counter()
            for route, body, _ in qs:  # open the store once (memory-mapped), as a running service has
                assert c.post(route, json=body).status_code == 200
            print(f"first requests (store opened): {time.perf_counter() - t0:.2f} s")
            single = []
            for _ in range(5):  # one client alone: the latency a user sees once the store is open
                t = time.perf_counter()
                assert c.post(qs[0][0], json=qs[0][1]).status_code == 200
                single.append(time.perf_counter() - t)
            lib = library_mweat_seconds(vectors, extra.get("store") or "fr-spacy-md")
            print(f"single client, MWEAT 100,000 permutations: median {1000 * statistics.median(single):.1f} ms over HTTP; "
                  f"the library call in this process {1000 * lib:.1f} ms (HTTP/library = {statistics.median(single) / lib:.2f}x)")
        latencies: dict[str, list[float]] = {route: [] for route, _, _ in qs}
        errors = []
        stop = time.perf_counter() + seconds
        lock = threading.Lock()

        def client(i: int) -> None:
            with httpx.Client(base_url=srv.url, timeout=120) as c:
                n = i
                while time.perf_counter() < stop:
                    route, body, _ = qs[n % len(qs)]
                    n += 1
                    t = time.perf_counter()
                    r = c.post(route, json=body)
                    dt = time.perf_counter() - t
                    with lock:
                        (latencies[route] if r.status_code == 200 else errors).append(dt)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start

    total = sum(len(v) for v in latencies.values())
    print(f"service: {total} requests in {wall:.1f} s = {total / wall:.2f} req/s ({len(errors)} errors)")
    service_mean = {}
    for route, lat in latencies.items():
        if lat:
            service_mean[route] = statistics.mean(lat)
            print(f"  {route:<11} n={len(lat):4d}  p50 {1000 * percentile(lat, 0.5):8.1f} ms  "
                  f"p99 {1000 * percentile(lat, 0.99):8.1f} ms  mean {1000 * service_mean[route]:8.1f} ms")

    import os

    env = dict(os.environ, **env_cli)
    cli_mean = {}
    for route, _, argv in qs:
        times = []
        for _ in range(max(1, args.cli_runs)):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, "-c", "from geobias.cli import main; main()", *argv],
                               capture_output=True, env=env)
            times.append(time.perf_counter() - t)
            assert r.returncode == 0, r.stderr.decode()[-500:]
        cli_mean[route] = statistics.mean(times)
    cli_throughput = len(qs) / sum(cli_mean.values())
    print(f"baseline: one `geobias` process per query, sequential: {cli_throughput:.2f} req/s")
    for route in cli_mean:
        if route in service_mean:
            print(f"  {route:<11} CLI process {1000 * cli_mean[route]:8.1f} ms / service mean latency "
                  f"{1000 * service_mean[route]:8.1f} ms = {cli_mean[route] / service_mean[route]:.1f}x")
    print(f"throughput ratio service / CLI processes: {total / wall / cli_throughput:.1f}x")


if __name__ == "__main__":
    main()
