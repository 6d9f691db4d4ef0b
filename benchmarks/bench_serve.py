"""The service under load: requests/s and latency at 1, 4, 16 and 50 concurrent clients.

One `geobias serve` on a free loopback port, the real fr-spacy-md store (a small synthetic store
when it is not installed). At each client count, for ``--duration`` seconds, every client (an
asyncio task with its own connection, all on one event loop) sends a mix of quick analyses — `/mweat` (10,000 permutations),
`/weat` (career-family, 10,000 permutations) and `/neighbors` (k = 10) — and, one request in
``--job-every``, a job submission (`POST /jobs`, an MWEAT job). Printed per client count:
requests/s, p50/p99 per route, errors (any status but 200/202), mismatches (a quick result that
is not equal — floats to float32 precision — to `geobias.commands.execute`'s, the CLI's `--json`
result, for the same parameters),
server CPU seconds per request, and the server's resident memory before and after (the server
process and its live descendants: the quick analyses' worker processes, running jobs). Then the
ratios the service is judged by (issue 27):

* throughput at the most clients (50) ÷ the best of the fewer client counts (1–16) (should stay
  ≥ 0.9: admission keeps the work per CPU second when clients outnumber cores);
* p99 at the most clients ÷ (clients ÷ that best rate), the latency Little's law gives a fair
  queue (should stay ≤ 2).

Each level's line also gives its own p99 ÷ Little's law (clients ÷ that level's rate): how far the
slowest requests wait beyond the mean a first-come-first-served queue gives, and where the slowest
1 % spent their time: waiting for a quick slot, computing in it (the server's ``Server-Timing``
header) and the rest (reading, parsing, answering, the client's own loop).

Each client connects from its own loopback address (127.0.0.2, 127.0.0.3, …): the server's
admission is per client (a bounded share of the slots, round-robin across clients), so clients
that all came from 127.0.0.1 would be one client to it. ``--quick-threads``
runs the server's quick analyses in threads instead of worker processes, to compare the two.

The jobs submitted are waited for at the end and their results checked the same way. The
machine may be shared: read the ratios, not the absolute figures; rerun the baseline on the
same machine before comparing.

First, what one quick request costs against the library call it wraps (issue 46), per route
(`/mweat`, 10,000 permutations and the default 1,000 bootstrap resamples; `/neighbors`, k = 10):
``--cost-requests`` requests from one client, in rounds alternating with the same number of
library calls in this process (`geobias.metrics.mweat` on the query the command builds,
`geobias.store.neighbors.nearest_neighbors`, on the same store, with the worker's thread settings:
BLAS and OpenMP in one thread), each checked first to give the route's result exactly (the same
work: the same k, resamples, seeds and store). Printed per route, with the load average: CPU seconds of the
server and its workers per request ÷ the library call's CPU (≤ 1.5 wanted; with the server's own
process's share: parsing, admitting and answering), and the worker's own
CPU for the call (``Server-Timing: cpu``) ÷ the library call's (≤ 1.2 wanted); each level's line
then gives the worker's CPU ÷ the library call's under that load, per route. A diagnostic line
follows each route: the library call timed right after each of as many more requests, so that it
finds the caches a request leaves (a call in a loop finds the store's matrix cached; between
requests the server's and the client's work evict part of it), and the worker's CPU ÷ that call.
A second one times the library call after an idle pause as long as a request's round trip, nothing
run in between (``time.sleep``): what a pause alone costs the call, with server + workers and the
worker ÷ it (on a shared host, other tenants' work and the cores' sleep evict the store's matrix from
the caches within milliseconds; a memory-bound call such as ``/neighbors``' then costs more than in a
loop whatever serves it). The targets stay judged against the call in a loop. Last per route, the floor: a bare uvicorn process
(the same HTTP parser, an ASGI app that answers the route's answer as fixed bytes, no geobias code on
the way) serving the same request, its CPU per request, and what server + workers would cost ÷ the
library call if the server's own process cost only that: with the worker's CPU as measured, and
with the library call's alone (a worker that added nothing).

Run: python benchmarks/bench_serve.py [--clients 1,4,16,50] [--duration 60] [--cost-requests 300]
         [--quick-threads] [--json-out FILE]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test harness lives in tests/
from _server import ServerProcess, free_port, small_french_store  # noqa: E402

QUICK = ("/mweat", "/weat", "/neighbors")


def requests_for(store: str) -> list[tuple[str, dict]]:
    """The quick requests of the mix: (route, JSON body); a few seeds and words so that results differ."""
    out: list[tuple[str, dict]] = []
    for seed in (1, 2, 3):
        out.append(("/mweat", {"lang": "fr", "vectors": store, "permutations": 10_000, "seed": seed}))
        out.append(("/weat", {"lang": "fr", "vectors": store, "test": "career-family", "permutations": 10_000,
                              "seed": seed}))
    for word in ("infirmière", "avocat", "directeur"):
        out.append(("/neighbors", {"lang": "fr", "vectors": store, "word": word, "k": 10}))
    return out


def expected_results(vectors: Path, reqs: list[tuple[str, dict]]) -> dict[str, str]:
    """The same parameters through the command layer in this process: each ``result`` as JSON values."""
    os.environ["GEOBIAS_VECTORS_DIR"] = str(vectors)
    from geobias.commands import execute

    want = {}
    for route, body in reqs:
        _, envelope = execute(route.strip("/"), body)
        want[_key(route, body)] = _canon(envelope["result"])
    return want


def _key(route: str, body: dict) -> str:
    return route + json.dumps(body, sort_keys=True)


def _canon(result):
    return json.loads(json.dumps(result))


def same(a, b) -> bool:
    """Equal JSON values; floats to float32 precision (a similarity summed in another order — BLAS
    threads, a memory-mapped vs a loaded array — differs in its last bits)."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()


def proc_stats(pid: int) -> tuple[float, int]:
    """(CPU seconds, resident bytes) of process ``pid`` and its live descendants (the fork server,
    the quick analyses' worker processes, running jobs; a job that has ended no longer counts), from
    /proc. Resident bytes count shared pages (the memory-mapped store) once per process."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                children.setdefault(int(_stat(int(entry.name))[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    cpu = rss = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = _stat(p)
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        rss += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        todo += children.get(p, [])
    return cpu, int(rss)


def own_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` alone (the server's event loop and its threads, no worker)."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _tail_split(parts: list[tuple[float, float, float]]) -> dict[str, float]:
    """Mean queue wait, slot time and the rest (ms) of the slowest 1 % of quick requests, and of all."""
    if not parts:
        return {}
    cut = percentile([p[0] for p in parts], 0.99)
    tail = [p for p in parts if p[0] >= cut]

    def mean(rows, i):
        return 1e3 * sum(r[i] for r in rows) / len(rows)

    return {"tail_total": mean(tail, 0), "tail_queue": mean(tail, 1), "tail_run": mean(tail, 2),
            "tail_rest": mean(tail, 0) - mean(tail, 1) - mean(tail, 2),
            "all_queue": mean(parts, 1), "all_run": mean(parts, 2)}


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def _server_timing(header: str) -> dict[str, float]:
    """``Server-Timing`` as {name: seconds}."""
    return {k: float(v) / 1e3 for k, v in (p.split(";dur=") for p in header.split(", ") if ";dur=" in p)}


def library_calls(vectors: Path, store: str) -> dict:
    """Per quick route of the cost phase: (the library call the route wraps, the request body). The
    library calls run on the store as the service opens it, with the worker's thread settings."""
    from threadpoolctl import threadpool_limits

    from geobias import wordlists
    from geobias.metrics import mweat
    from geobias.query import WordQuery
    from geobias.service.quick import _one_omp_thread
    from geobias.store import load_store
    from geobias.store.neighbors import nearest_neighbors

    threadpool_limits(1)  # as each quick worker: BLAS and OpenMP in the analysis's own thread
    _one_omp_thread()
    opened = load_store(vectors / store)
    opened.unit_vectors  # noqa: B018 - built once when the service opens a store, too
    male, female = wordlists.attribute_words("fr")
    query = WordQuery.two_form(wordlists.occupations("fr"), male, female)
    return {
        "/mweat": (lambda: mweat(opened, query, permutations=10_000, seed=1, oov="ignore", bootstrap=1_000,
                                 bootstrap_seed=1),
                   {"lang": "fr", "vectors": store, "permutations": 10_000, "seed": 1}),
        "/neighbors": (lambda: nearest_neighbors(opened, "infirmière", 10, lang="fr"),
                       {"lang": "fr", "vectors": store, "word": "infirmière", "k": 10}),
    }


def same_work(c: httpx.Client, calls: dict) -> None:
    """Check that each library call does the route's work: its result equals the ``result`` the route
    answers for the same body (every field, floats to float32 precision), so that the cost phase
    compares one computation with itself, not with a cheaper one (a smaller k, fewer resamples).

    Raises
    ------
    SystemExit
        A route answers another result than its library call (the comparison would be unfair).
    """
    for route, (library, body) in calls.items():
        got = c.post(route, json=body)
        if got.status_code != 200 or not same(_canon(library().to_dict()), got.json()["result"]):
            raise SystemExit(f"{route}: the library call's result is not the route's; the cost ratio would "
                             "compare different work")


def cost_per_request(c: httpx.Client, pid: int, calls: dict, n: int, rounds: int = 5) -> dict:
    """Per route: CPU per request of the server and its workers, the worker's CPU per call
    (``Server-Timing``) and the library call's CPU in this process, measured in ``rounds`` rounds that
    alternate ``n / rounds`` library calls with as many requests (one client, one at a time)."""
    import statistics

    out = {}
    for route, (library, body) in calls.items():
        library()  # warm
        assert c.post(route, json=body).status_code == 200
        lib = srv = loop = wall = 0.0
        worker: list[float] = []
        per = max(1, n // rounds)
        for _ in range(rounds):
            t = time.process_time()
            for _ in range(per):
                library()
            lib += time.process_time() - t
            cpu0, own0, w0 = proc_stats(pid)[0], own_cpu(pid), time.perf_counter()
            for _ in range(per):
                r = c.post(route, json=body)
                assert r.status_code == 200, r.text
                worker.append(_server_timing(r.headers.get("server-timing", "")).get("cpu", float("nan")))
            wall += time.perf_counter() - w0
            srv += proc_stats(pid)[0] - cpu0
            loop += own_cpu(pid) - own0
        count = per * rounds
        # a diagnostic beside the ratios (which stay judged against the loop above): the library call
        # right after each request, so that it finds the caches a request leaves (the server's and the
        # client's work in between evicts part of the store's matrix; a call in a loop finds it cached)
        after = 0.0
        for _ in range(count):
            assert c.post(route, json=body).status_code == 200
            t = time.process_time()
            library()
            after += time.process_time() - t
        # and the library call after an idle pause as long as a request's round trip, nothing run in
        # between: what the pause alone costs it (on a shared host, other tenants' work and the cores'
        # sleep evict the matrix from the caches within milliseconds, whatever the service does)
        pause, idle = wall / count, 0.0
        for _ in range(count):
            time.sleep(pause)
            t = time.process_time()
            library()
            idle += time.process_time() - t
        out[route] = {"requests": count, "library_cpu_ms": 1e3 * lib / count, "service_cpu_ms": 1e3 * srv / count,
                      "event_loop_cpu_ms": 1e3 * loop / count,
                      "worker_cpu_ms": 1e3 * statistics.fmean(worker),
                      "service_over_library": srv / lib, "worker_over_library": statistics.fmean(worker) * count / lib,
                      "library_after_request_cpu_ms": 1e3 * after / count,
                      "worker_over_library_after_request": statistics.fmean(worker) * count / after,
                      "request_wall_ms": 1e3 * pause, "library_after_pause_cpu_ms": 1e3 * idle / count,
                      "service_over_library_after_pause": srv / idle,
                      "worker_over_library_after_pause": statistics.fmean(worker) * count / idle}
    return out


#: A bare ASGI app under uvicorn, with the parser the service runs (:func:`geobias.service.protocol.http_protocol`),
#: answering every request with the bytes in ``$GEOBIAS_FLOOR_BODY``: no geobias code on the request's way.
_FLOOR_APP = """
import os, uvicorn
from geobias.service.protocol import MAX_HEAD_BYTES, http_protocol
BODY = bytes.fromhex(os.environ["GEOBIAS_FLOOR_BODY"])
HEAD = {"type": "http.response.start", "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]}
async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    more = True
    while more:
        more = (await receive()).get("more_body", False)
    await send(HEAD)
    await send({"type": "http.response.body", "body": BODY})
uvicorn.run(app, host="127.0.0.1", port=int(os.environ["GEOBIAS_FLOOR_PORT"]), log_level="warning", access_log=False,
            http=http_protocol(), h11_max_incomplete_event_size=MAX_HEAD_BYTES)
"""


def uvicorn_floor(route: str, body: dict, answer: bytes, n: int) -> float:
    """CPU milliseconds per request of a bare uvicorn process that answers ``answer`` to ``POST route``
    with ``body`` (``n`` requests from one client, after 200 to warm up): what serving a request over
    HTTP costs before any of the service's own work, the floor under the server's own process's share."""
    import subprocess

    port = free_port()
    env = dict(os.environ, GEOBIAS_FLOOR_BODY=answer.hex(), GEOBIAS_FLOOR_PORT=str(port))
    proc = subprocess.Popen([sys.executable, "-c", _FLOOR_APP], env=env)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            deadline = time.monotonic() + 30
            while True:
                try:
                    c.post(route, json=body)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise
                    time.sleep(0.1)
            for _ in range(200):
                c.post(route, json=body)
            cpu = own_cpu(proc.pid)
            for _ in range(n):
                assert c.post(route, json=body).content == answer
            return 1e3 * (own_cpu(proc.pid) - cpu) / n
    finally:
        proc.terminate()
        proc.wait(10)


def run_level(url: str, clients: int, duration: float, reqs, want, job_every: int, job_body: dict, pid: int) -> dict:
    """``clients`` concurrent clients for ``duration`` seconds; one asyncio loop drives them all (50
    client threads would spend the shared cores on their own interpreter lock, not on the server)."""
    import asyncio

    latencies: dict[str, list[float]] = {r: [] for r in (*QUICK, "/jobs")}
    parts: list[tuple[float, float, float]] = []  # quick requests: (total, queue, run) seconds
    errors: dict[str, int] = {}
    mismatches = [0]
    job_ids: list[str] = []

    async def client(c: httpx.AsyncClient, i: int, stop: float) -> None:
        n = i * 7
        while time.perf_counter() < stop:
            n += 1
            if job_every and n % job_every == 0:
                route, body = "/jobs", job_body
            else:
                route, body = reqs[n % len(reqs)]
            t = time.perf_counter()
            try:
                r = await c.post(route, json=body)
            except httpx.HTTPError as exc:
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                continue
            dt = time.perf_counter() - t
            if r.status_code != (202 if route == "/jobs" else 200):
                errors[str(r.status_code)] = errors.get(str(r.status_code), 0) + 1
            else:
                # checked after the level: decoding and comparing here would hold up the other
                # clients' coroutines on this one loop and count as the server's latency
                answers.append((route, body, r.content, dt, r.headers.get("server-timing", "")))

    async def level() -> float:
        # one connection per client, each from its own loopback address: one client each to the server
        cs = [httpx.AsyncClient(base_url=url, timeout=300, transport=httpx.AsyncHTTPTransport(
            local_address=f"127.0.{(i + 2) // 256}.{(i + 2) % 256}")) for i in range(clients)]
        try:
            start = time.perf_counter()
            await asyncio.gather(*(client(c, i, start + duration) for i, c in enumerate(cs)))
            return time.perf_counter() - start
        finally:
            for c in cs:
                await c.aclose()

    answers: list[tuple[str, dict, bytes, float, str]] = []
    worker_cpu: dict[str, list[float]] = {}  # quick route → the worker's CPU seconds per call
    cpu0, rss0 = proc_stats(pid)
    wall = asyncio.run(level())
    cpu1, rss1 = proc_stats(pid)
    for route, body, content, dt, server_timing in answers:
        data = json.loads(content)
        if route == "/jobs":
            latencies[route].append(dt)
            job_ids.append(data["id"])
        elif not same(data["result"], want[_key(route, body)]):
            mismatches[0] += 1
        else:
            latencies[route].append(dt)
            timing = _server_timing(server_timing)
            parts.append((dt, timing.get("queue", float("nan")), timing.get("run", float("nan"))))
            worker_cpu.setdefault(route, []).append(timing.get("cpu", float("nan")))
    n_quick = sum(len(latencies[r]) for r in QUICK)
    n_all = n_quick + len(latencies["/jobs"])
    return {
        "clients": clients, "seconds": round(wall, 2), "requests": n_all, "quick_requests": n_quick,
        "requests_per_s": n_all / wall, "quick_per_s": n_quick / wall,
        "routes": {r: {"n": len(v), "p50_ms": 1e3 * percentile(v, 0.5), "p99_ms": 1e3 * percentile(v, 0.99)}
                   for r, v in latencies.items() if v},
        "p99_ms_all_quick": 1e3 * percentile([x for r in QUICK for x in latencies[r]], 0.99),
        # Little's law: the mean time in a closed system of `clients` at this rate
        "p99_over_littles_law": percentile([x for r in QUICK for x in latencies[r]], 0.99) / (clients / max(n_all / wall, 1e-9)),
        "errors": errors, "result_mismatches": mismatches[0],
        "p99_tail_split_ms": _tail_split(parts),
        "server_cpu_ms_per_request": 1e3 * (cpu1 - cpu0) / max(1, n_all),
        "worker_cpu_ms": {r: 1e3 * sum(v) / len(v) for r, v in worker_cpu.items()},
        "load_average": os.getloadavg()[0],
        "server_rss_mb_before": rss0 / 2**20, "server_rss_mb_after": rss1 / 2**20, "jobs": job_ids,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", default="1,4,16,50", help="Client counts, comma-separated.")
    ap.add_argument("--duration", type=float, default=60.0, help="Seconds at each client count.")
    ap.add_argument("--job-every", type=int, default=50, help="One request in N is a job submission (0: none).")
    ap.add_argument("--quick-threads", action="store_true",
                    help="Serve quick analyses from threads of the server process (geobias serve --quick-threads).")
    ap.add_argument("--cost-requests", type=int, default=300,
                    help="Requests (and library calls) per route in the cost phase (0: skip it).")
    ap.add_argument("--json-out", type=Path, help="Also write the figures as JSON here.")
    args = ap.parse_args()
    levels = [int(x) for x in args.clients.split(",") if x.strip()]
    if not levels or min(levels) < 1 or args.duration <= 0:
        ap.error("--clients needs positive counts and --duration a positive number of seconds")

    from geobias.sources import registry

    tmp = Path(tempfile.mkdtemp(prefix="geobias-bench-serve-"))
    if registry.is_installed("fr-spacy-md"):
        vectors, store, label = registry.vectors_dir(), "fr-spacy-md", "fr-spacy-md (20,000 × 300)"
    else:
        from geobias.store import save_store

        vectors = tmp / "vectors"
        vectors.mkdir()
        save_store(small_french_store(), vectors / "small-fr")
        store, label = "small-fr", "synthetic small-fr (fr-spacy-md not installed)"
    reqs = requests_for(store)
    want = expected_results(vectors, reqs)
    job_body = {"kind": "mweat", "params": {"lang": "fr", "vectors": store, "permutations": 10_000, "seed": 1}}
    job_want = want[_key("/mweat", job_body["params"])]
    print(f"store: {label}; {args.duration:g} s at each of {levels} clients; cores: {os.cpu_count()}; "
          "the machine may be shared")

    mode = "threads" if args.quick_threads else "worker processes"
    report: dict = {"store": label, "duration_s": args.duration, "cores": os.cpu_count(), "quick": mode, "levels": []}
    extra = ["--quick-threads"] if args.quick_threads else []
    with ServerProcess(vectors, tmp / "data", "--workers", "1", "--max-queue", "100000", "--max-waiting", "1000",
                       "--quiet", *extra) as srv, httpx.Client(base_url=srv.url, timeout=300) as c:
        for route, body in reqs:  # open the store and warm every route once
            assert c.post(route, json=body).status_code == 200
        report["server_rss_mb_start"] = proc_stats(srv.proc.pid)[1] / 2**20
        calls = library_calls(vectors, store)
        library_ms = {}
        if args.cost_requests > 0:
            same_work(c, calls)
            cost = report["cost_per_request"] = cost_per_request(c, srv.proc.pid, calls, args.cost_requests)
            print(f"CPU per quick request against the library call (one client, load average "
                  f"{os.getloadavg()[0]:.2f}):")
            for route, v in cost.items():
                library_ms[route] = v["library_cpu_ms"]
                print(f"  {route:11s} library {v['library_cpu_ms']:6.2f} ms   server + workers "
                      f"{v['service_cpu_ms']:6.2f} ms = {v['service_over_library']:.2f} × (≤ 1.5 wanted; of it the "
                      f"server's own process {v['event_loop_cpu_ms']:.2f} ms)   worker "
                      f"{v['worker_cpu_ms']:6.2f} ms = {v['worker_over_library']:.2f} × (≤ 1.2 wanted)   "
                      f"[{v['requests']} each]")
                print(f"  {'':11s} diagnostic: the library call right after each request {v['library_after_request_cpu_ms']:.2f} ms "
                      f"(the caches a request leaves); the worker ÷ it {v['worker_over_library_after_request']:.2f} ×")
                print(f"  {'':11s} diagnostic: the library call after an idle pause as long as a request "
                      f"({v['request_wall_ms']:.2f} ms, nothing run) {v['library_after_pause_cpu_ms']:.2f} ms; server + "
                      f"workers ÷ it {v['service_over_library_after_pause']:.2f} ×, the worker ÷ it "
                      f"{v['worker_over_library_after_pause']:.2f} ×")
                # the floor under the server's own share: uvicorn alone, answering the same bytes
                body = calls[route][1]
                floor = v["uvicorn_floor_cpu_ms"] = uvicorn_floor(route, body, c.post(route, json=body).content,
                                                                  max(1000, args.cost_requests))
                print(f"  {'':11s} floor: a bare uvicorn answering the same bytes {floor:.2f} ms per request; with the "
                      f"worker's CPU, the least server + workers could be {(floor + v['worker_cpu_ms']) / v['library_cpu_ms']:.2f} ×, "
                      f"and with the library call's alone {(floor + v['library_cpu_ms']) / v['library_cpu_ms']:.2f} ×")
        jobs: list[str] = []
        for clients in levels:
            level = run_level(srv.url, clients, args.duration, reqs, want, args.job_every, job_body, srv.proc.pid)
            jobs += level.pop("jobs")
            report["levels"].append(level)
            routes = "  ".join(f"{r} p50 {v['p50_ms']:.1f} p99 {v['p99_ms']:.1f} ms" for r, v in level["routes"].items())
            print(f"{clients:3d} clients: {level['requests_per_s']:7.1f} req/s  errors {sum(level['errors'].values())} "
                  f"{level['errors'] or ''} mismatches {level['result_mismatches']}  server CPU "
                  f"{level['server_cpu_ms_per_request']:.2f} ms/req  RSS {level['server_rss_mb_before']:.0f} → "
                  f"{level['server_rss_mb_after']:.0f} MB  p99 ÷ Little {level['p99_over_littles_law']:.2f}  load "
                  f"{level['load_average']:.2f}"
                  + "".join(f"\n             worker CPU ÷ library {r}: {level['worker_cpu_ms'][r] / ms:.2f}"
                            f" ({level['worker_cpu_ms'][r]:.2f} ÷ {ms:.2f} ms)"
                            for r, ms in library_ms.items() if r in level["worker_cpu_ms"])
                  + f"\n             {routes}"
                  f"\n             slowest 1 %: " + ", ".join(f"{k} {v:.0f} ms" for k, v in level["p99_tail_split_ms"].items()))
        deadline = time.monotonic() + 600  # the jobs submitted under load: all done, same result as the CLI
        bad_jobs, bad_states = 0, {}
        for job_id in jobs:
            while (job := c.get(f"/jobs/{job_id}").json())["state"] not in ("done", "failed", "cancelled") \
                    and time.monotonic() < deadline:
                time.sleep(0.2)
            bad = job["state"] != "done" or not same(job["result"]["result"], job_want)
            bad_jobs += bad
            if bad:
                why = job["state"] if job["state"] != "done" else "another result"
                why += f" ({job['error']['type']}: {job['error']['message'][:80]})" if job.get("error") else ""
                bad_states[why] = bad_states.get(why, 0) + 1
        report["jobs"] = {"submitted": len(jobs), "not_done_or_different": bad_jobs}
        report["server_rss_mb_end"] = proc_stats(srv.proc.pid)[1] / 2**20
    print(f"jobs: {len(jobs)} submitted under load, {bad_jobs} not done or with another result than the CLI's"
          + (f": {bad_states}" if bad_jobs else ""))

    by = {lv["clients"]: lv for lv in report["levels"]}
    top = max(by)
    fewer = [lv["requests_per_s"] for n, lv in by.items() if n < top and n <= 16]
    if fewer:
        best = max(fewer)
        fair = top / best
        rps_ratio, p99_ratio = by[top]["requests_per_s"] / best, by[top]["p99_ms_all_quick"] / 1e3 / fair
        report["ratios"] = {"clients": top, "rps_over_best_fewer": rps_ratio, "p99_over_littles_law": p99_ratio}
        if top == 50:  # the names earlier runs wrote
            report["ratios"].update(rps_50_over_best_1_16=rps_ratio, p99_50_over_littles_law=p99_ratio)
        print(f"ratios ({mode}): {top}-client req/s ÷ best of fewer = {rps_ratio:.2f} (≥ 0.9 wanted); p99 at {top} ÷ "
              f"({top} ÷ best rate = {1e3 * fair:.0f} ms) = {p99_ratio:.2f} (≤ 2 wanted)")
    print(f"server RSS: {report['server_rss_mb_start']:.0f} MB after warm-up, {report['server_rss_mb_end']:.0f} MB at the end")
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=2))
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
