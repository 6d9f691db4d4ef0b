"""The service under abuse: what the cheap refusals, the per-client admission, cancellation,
shutdown and content verification cost and buy, measured against the targets they serve.

One `geobias serve` on a free loopback port (two quick workers, background verification off so
that it does not compete), a small synthetic French store for `/neighbors` and a 4,000-word
synthetic store on which a WEAT of four 1,000-word sets at the permutation cap (1,000,000) costs
seconds. Printed:

1. **Refusal time** of a 20,000-word set (a list, a comma list) on `/mweat`, `/weat` and `/jobs`,
   and of a 100,000-deep nested body: median and max milliseconds (target: under 1 s).
2. **Another client's `/neighbors` under abuse**: its p50/p99 alone, then while a greedy client
   (its own loopback address) keeps 100 WEATs at the permutation cap in flight and two more
   send 20,000-word sets in a loop; the ratio of p99s, each against the p99 alone measured just
   before (target: ≤ 2), how the greedy client was answered (200 / 429 / 503), and where the
   slowest 5 % of the requests spent their time (the server's ``Server-Timing``: queue, the
   worker's CPU, the worker waiting for a core, the hand-over to the worker, outside the slot).
   The abusing clients run in processes of their own.
3. **Disconnect → 499**: a client abandons a WEAT at the cap after 0.5 s; the access log's 499
   line gives when the server stopped it (target: within 1 s of the disconnect).
4. **SIGTERM** of the server while two quick analyses and a job compute: seconds to exit
   (target: under 5 s).
5. **Hash throughput**: sha256 of a 256 MiB file (MB/s, one core), the cost of verifying a
   store in full (`geobias vectors verify`, the service's first open and each ``--verify-every``
   round) and of hashing a store at every open below ``HASH_AT_OPEN_BYTES``.

6. **Hostile vector files** (``tests/_hostile.py``: 22 bytes declaring 2 × 10⁹ values, a
   billion-row .vec, a (4, 5·10¹⁰) .npz member, a 10¹¹-row word2vec .bin, a zip member lying about
   its size, and a 1000:1 .npz above ``--max-store-mb``), each uploaded 5 times: the refusal's
   median/max milliseconds (target: under 1 s), the server's peak resident memory before and after
   (target: under 100 MB of growth), and another client's ``/neighbors`` p99 while a loop uploads
   them, against alone (target: ≤ 2); then the same files on the command line (exit code, one
   line, seconds, peak memory of the process).
7. **The job queue**: 100 concurrent ``POST /jobs`` with ``--max-queue 16`` from 7 loopback
   addresses (target: at most 16 queued), two clients filling it (each its share), two spellings
   of one token from one address (one share), and the 429s' ``Retry-After`` against the work
   that client had admitted.
8. **Quick budget**: the refusal time of a 4 × 5,000-word WEAT at 10⁶ permutations (default
   ``--quick-budget``), and what the budget stands for here (WEATs of 4 × 1,000 words at 20,000
   and 200,000 permutations, the second, warm, timed against its estimated cost).

The machine may be shared: the figures are ratios against a baseline taken in the same run, and
the load average (``uptime``) is printed with them.

Run: python benchmarks/bench_abuse.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import queue
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test harness lives in tests/
from _server import ServerProcess, small_french_store  # noqa: E402

WORDS = [f"w{i}" for i in range(4000)]
HEAVY = {"store": "big", "targets_x": WORDS[0:1000], "targets_y": WORDS[1000:2000],
         "attributes_a": WORDS[2000:3000], "attributes_b": WORDS[3000:4000], "permutations": 1_000_000}
BIG_LIST = [f"x{i}" for i in range(20_000)]


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def refusals(c: httpx.Client) -> None:
    cases = {
        "/mweat 20,000-word list": ("/mweat", {"store": "small-fr", "targets_x": BIG_LIST}),
        "/weat 20,000-word comma list": ("/weat", {"store": "small-fr", "targets_x": ",".join(BIG_LIST)}),
        "/jobs 20,000-word list": ("/jobs", {"kind": "weat", "params": {"store": "small-fr", "targets_x": BIG_LIST}}),
    }
    for label, (route, body) in cases.items():
        times = []
        for _ in range(10):
            t = time.perf_counter()
            r = c.post(route, json=body)
            times.append(time.perf_counter() - t)
            assert r.status_code == 422, r.text[:200]
        print(f"  {label}: 422 in median {1e3 * statistics.median(times):.1f} ms, max {1e3 * max(times):.1f} ms")
    nested = b"[" * 100_000 + b"]" * 100_000
    times = []
    for _ in range(10):
        t = time.perf_counter()
        r = c.post("/mweat", content=nested, headers={"Content-Type": "application/json"})
        times.append(time.perf_counter() - t)
        assert r.status_code == 422, r.text[:200]
    print(f"  /mweat 100,000-deep nesting: 422 in median {1e3 * statistics.median(times):.1f} ms, max {1e3 * max(times):.1f} ms")


def neighbors_under_abuse(url: str, rounds: int) -> None:
    """The victim's /neighbors alone, then beside each kind of abuse and both together."""
    body = {"store": "small-fr", "word": "homme", "k": 10}

    def sample(c: httpx.Client, n: int) -> tuple[list[float], list[float], list[float], list[dict]]:
        total, queue, run, parts = [], [], [], []
        for _ in range(n):
            t = time.perf_counter()
            r = c.post("/neighbors", json=body)
            total.append(time.perf_counter() - t)
            assert r.status_code == 200, r.text[:200]
            timing = {k: float(v) / 1e3 for k, v in (p.split(";dur=") for p in r.headers["server-timing"].split(", "))}
            queue.append(timing["queue"])
            run.append(timing["run"])
            parts.append({**timing, "total": total[-1]})
        return total, queue, run, parts

    def tail(parts: list[dict]) -> str:
        """Where the slowest 5 % of the requests spent their time (means over them, ms): in the
        admission queue, in the worker on a core (cpu) and waiting for one (compute - cpu), handing
        the call to the worker and back (run - compute), and outside the slot (the server's event
        loop, HTTP, the client)."""
        worst = sorted(parts, key=lambda p: p["total"])[-max(1, len(parts) // 20):]

        def mean(f):
            return 1e3 * statistics.fmean(f(p) for p in worst)
        return (f"slowest 5 %: total {mean(lambda p: p['total']):.1f} = queue {mean(lambda p: p['queue']):.1f} "
                f"+ worker cpu {mean(lambda p: p.get('cpu', 0)):.1f} + worker waiting for a core "
                f"{mean(lambda p: p.get('compute', 0) - p.get('cpu', 0)):.1f} + hand-over "
                f"{mean(lambda p: p['run'] - p.get('compute', 0)):.1f} + outside the slot "
                f"{mean(lambda p: p['total'] - p['run'] - p['queue']):.1f} ms")

    victim = httpx.Client(base_url=url, timeout=300, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
    sample(victim, 10)
    scenarios = {
        "a greedy client: 100 WEATs at the permutation cap in flight": (True, None),
        "two clients each sending a 20,000-word set every 0.5 s": (False, 0.5),
        "both (the issue's case)": (True, 0.5),
        "both, the 20,000-word sets back to back (a stress case)": (True, 0.0),
    }
    # the abusing clients are processes of their own, as other clients are: threads of this one
    # would take the interpreter lock from the victim's client and count in its latency
    ctx = multiprocessing.get_context("spawn")
    for label, (with_greedy, pause) in scenarios.items():
        idle = sample(victim, rounds)  # the baseline just before, on the machine as it is now
        print(f"  /neighbors alone: p50 {1e3 * pct(idle[0], 0.5):.1f} ms, p99 {1e3 * pct(idle[0], 0.99):.1f} ms "
              f"({rounds} requests; {load()})\n    {tail(idle[3])}")
        stop, answers = ctx.Event(), ctx.Queue()
        procs = []
        if with_greedy:
            procs.append(ctx.Process(target=_greedy, args=(url, stop, answers), daemon=True))
        if pause is not None:
            procs += [ctx.Process(target=_big_lists, args=(url, stop, pause, f"127.0.0.{4 + i}"), daemon=True)
                      for i in range(2)]
        for proc in procs:
            proc.start()
        time.sleep(4.0)  # the clients are up, the greedy client's share is taken and its queue full
        busy = sample(victim, rounds)
        stop.set()
        try:
            status = answers.get(timeout=60) if with_greedy else {}
        except queue.Empty:
            status = {"no report from the greedy client": 1}
        ratio = pct(busy[0], 0.99) / pct(idle[0], 0.99)
        print(f"  beside {label}: p50 {1e3 * pct(busy[0], 0.5):.1f} ms, p99 {1e3 * pct(busy[0], 0.99):.1f} ms, "
              f"p99 ratio {ratio:.2f} (≤ 2 wanted); at p99 queue {1e3 * pct(busy[1], 0.99):.1f} ms, slot "
              f"{1e3 * pct(busy[2], 0.99):.1f} ms" + (f"; greedy answered {dict(sorted(status.items(), key=str))}" if status else "")
              + f"\n    {tail(busy[3])}")
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
        time.sleep(2.0)  # the greedy client's last analysis drains
    victim.close()


def _greedy(url: str, stop, answers) -> None:
    """A client keeping 100 WEATs at the permutation cap in flight (its own loopback address);
    puts the count of each status it got on ``answers`` when ``stop`` is set."""
    status: dict = {}

    async def go():
        async with httpx.AsyncClient(base_url=url, timeout=600, limits=httpx.Limits(max_connections=100),
                                     transport=httpx.AsyncHTTPTransport(local_address="127.0.0.3")) as c:
            async def one():
                while not stop.is_set():
                    try:
                        r = await c.post("/weat", json=HEAVY)
                        status[r.status_code] = status.get(r.status_code, 0) + 1
                        if r.status_code in (429, 503):
                            await asyncio.sleep(float(r.headers.get("retry-after", "1")))
                    except httpx.HTTPError as exc:
                        status[type(exc).__name__] = status.get(type(exc).__name__, 0) + 1

            async def until_stopped():
                while not stop.is_set():
                    await asyncio.sleep(0.1)
                answers.put(dict(status))  # a copy: the queue pickles later, when teardown has added its own errors

            await asyncio.wait([asyncio.create_task(until_stopped()), *(asyncio.create_task(one()) for _ in range(100))],
                               return_when=asyncio.FIRST_COMPLETED)
    asyncio.run(go())


def _big_lists(url: str, stop, pause: float, address: str) -> None:
    """A client sending a 20,000-word set every ``pause`` seconds until ``stop`` is set (encoded
    once, as an attacker would: encoding it costs the client 2-3 ms, on the cores the server and
    the victim share here, which a client on another machine would not take from them)."""
    import json

    body = json.dumps({"store": "small-fr", "targets_x": BIG_LIST}).encode()
    with httpx.Client(base_url=url, timeout=60, transport=httpx.HTTPTransport(local_address=address)) as c:
        while not stop.is_set():
            c.post("/mweat", content=body, headers={"Content-Type": "application/json"})
            time.sleep(pause)


def disconnect(srv: ServerProcess) -> None:
    stops = []
    for _ in range(3):
        before = srv.log.read_text(errors="replace") if srv.log.exists() else ""
        try:
            httpx.post(srv.url + "/weat", json=HEAVY, timeout=0.5)
        except httpx.TimeoutException:
            pass
        deadline = time.monotonic() + 30
        found = None
        while time.monotonic() < deadline and found is None:
            new = srv.log.read_text(errors="replace")[len(before):]
            m = re.search(r'"POST /weat" 499 ([0-9.]+) ms', new)
            found = float(m.group(1)) if m else None
            time.sleep(0.1)
        stops.append(found)
    shown = ", ".join("none" if s is None else f"{s - 500:.0f} ms" for s in stops)
    print(f"  stopped after the client left (499 in the access log): {shown} (within 1,000 ms wanted)")


def sigterm(vectors: Path, data: Path) -> None:
    srv = ServerProcess(vectors, data, "--quick-workers", "2", "--workers", "1", "--verify-every", "0").start()
    c = srv.client(timeout=5)
    job = c.post("/jobs", json={"kind": "weat", "params": HEAVY}).json()
    for _ in range(2):
        threading.Thread(target=lambda: _quiet_post(srv.url + "/weat", HEAVY), daemon=True).start()
    deadline = time.monotonic() + 60
    while c.get(f"/jobs/{job['id']}").json()["state"] != "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)
    t = time.perf_counter()
    srv.proc.send_signal(signal.SIGTERM)
    srv.proc.wait(timeout=120)
    print(f"  SIGTERM with two quick analyses and a job computing: exited in {time.perf_counter() - t:.2f} s "
          "(under 5 s wanted)")
    c.close()


def _quiet_post(url, body):
    try:
        httpx.post(url, json=body, timeout=120)
    except httpx.HTTPError:
        pass


def hashing(tmp: Path) -> None:
    from geobias.store import VectorStore, save_store
    from geobias.store.cache import HASH_AT_OPEN_BYTES, sha256_file
    from geobias.store.verify import verify_stores

    f = tmp / "blob"
    with open(f, "wb") as fh:
        fh.write(np.random.default_rng(0).bytes(256 << 20))
    sha256_file(f)  # in the page cache
    t = time.perf_counter()
    sha256_file(f)
    rate = (256 << 20) / (time.perf_counter() - t) / 1e6
    print(f"  sha256: {rate:,.0f} MB/s on one core (file in the page cache)")
    n, d = 200_000, 300  # a 240 MB store
    rng = np.random.default_rng(1)
    save_store(VectorStore([f"w{i}" for i in range(n)], rng.standard_normal((n, d)).astype(np.float32)), tmp / "s240")
    t = time.perf_counter()
    verify_stores(["s240"], tmp)
    print(f"  full verification of a 200,000 × 300 store (240 MB): {time.perf_counter() - t:.2f} s; "
          f"hashing at every open below {HASH_AT_OPEN_BYTES >> 20} MiB costs up to "
          f"{1e3 * HASH_AT_OPEN_BYTES / 1e6 / rate:.0f} ms per open")


def _peak_rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _upload(c: httpx.Client, name: str, filename: str, content: bytes) -> tuple[int, float, str]:
    t = time.perf_counter()
    r = c.post("/stores", params={"name": name, "filename": filename}, content=content,
               headers={"Content-Type": "application/octet-stream"})
    ms = 1e3 * (time.perf_counter() - t)
    return r.status_code, ms, r.json().get("error", {}).get("message", "") if r.status_code >= 400 else ""


def hostile_uploads(vectors: Path, tmp: Path, rounds: int) -> None:
    from _hostile import bomb, corpus

    files = {**corpus(), "npz-1000-to-1": bomb()}
    with ServerProcess(vectors, tmp / "data6", "--quick-workers", "2", "--verify-every", "0",
                       "--max-store-mb", "1") as srv, srv.client(timeout=120) as c:
        body = {"store": "small-fr", "word": "roi", "k": 10}
        for _ in range(20):
            c.post("/neighbors", json=body)
        before = _peak_rss_mb(srv.proc.pid)
        statuses = set()
        for case, (filename, content) in files.items():
            times = []
            for i in range(5):
                status, ms, msg = _upload(c, f"h{i}", filename, content)
                statuses.add(status)
                times.append(ms)
            print(f"   {case:24s} ({len(content):>9,} B): {status} in median {statistics.median(times):6.1f} ms, "
                  f"max {max(times):6.1f} ms — {msg[:90]}")
        after = _peak_rss_mb(srv.proc.pid)
        print(f"   statuses {sorted(statuses)}; server peak RSS {before:.0f} MB before, {after:.0f} MB after "
              f"(growth {after - before:.0f} MB; target < 100)")
        alone = []
        for _ in range(rounds):
            t = time.perf_counter()
            c.post("/neighbors", json=body)
            alone.append(1e3 * (time.perf_counter() - t))
        stop = threading.Event()

        def attack():
            with srv.client(timeout=120) as a:
                while not stop.is_set():
                    for filename, content in files.values():
                        _upload(a, "atk", filename, content)

        threads = [threading.Thread(target=attack) for _ in range(2)]
        for t in threads:
            t.start()
        during = []
        for _ in range(rounds):
            t = time.perf_counter()
            c.post("/neighbors", json=body)
            during.append(1e3 * (time.perf_counter() - t))
        stop.set()
        for t in threads:
            t.join()
        print(f"   /neighbors p50/p99 alone {pct(alone, .5):.1f}/{pct(alone, .99):.1f} ms; during two upload loops "
              f"{pct(during, .5):.1f}/{pct(during, .99):.1f} ms: p99 ratio {pct(during, .99) / pct(alone, .99):.2f} "
              f"(target ≤ 2); peak RSS now {_peak_rss_mb(srv.proc.pid):.0f} MB")
    import subprocess

    for case in ("text-22-bytes", "text-30-bytes", "text-billion-rows", "npz-huge-shape", "bin-huge-header"):
        filename, content = files[case]
        path = tmp / f"cli-{case}-{filename}"
        path.write_bytes(content)
        t = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-c", "from geobias.cli import main; main()",
                            "neighbors", "roi", "--vectors", str(path)], capture_output=True, text=True)
        secs = time.perf_counter() - t
        lines = r.stderr.strip().splitlines()
        peak = int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")
        ours = [x for x in lines[:-1] if not x.startswith("Command exited")]  # /usr/bin/time's own lines out
        print(f"   CLI {case:20s}: exit {r.returncode}, {len(ours)} line, {secs:.2f} s (start-up included), "
              f"peak {peak:.0f} MB — {ours[0][:60] if ours else ''}…{ours[0][-50:] if ours else ''}")


def _client(url: str, address: str, headers: dict | None = None) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=60, headers=headers or {},
                        transport=httpx.HTTPTransport(local_address=address))


def job_queue(vectors: Path, tmp: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    slow = {"kind": "mweat", "params": {"lang": "fr", "vectors": "small-fr", "permutations": 200_000_000}}
    with ServerProcess(vectors, tmp / "data7", "--workers", "1", "--max-queue", "16", "--verify-every", "0",
                       "--max-permutations", "1000000000") as srv:
        clients = [_client(srv.url, f"127.0.0.{2 + i % 7}") for i in range(100)]
        with ThreadPoolExecutor(100) as pool:
            answers = list(pool.map(lambda c: c.post("/jobs", json=slow), clients))
        states = [j["state"] for j in srv.client().get("/jobs?limit=500").json()["jobs"]]
        queued, running = states.count("queued"), len(states) - states.count("queued")
        codes = [a.status_code for a in answers]
        retry = sorted({int(a.headers["Retry-After"]) for a in answers if a.status_code == 429})
        print(f"   100 concurrent submissions from 7 addresses, --max-queue 16: {codes.count(202)} × 202, "
              f"{codes.count(429)} × 429 (Retry-After {retry} s); {queued} queued (target ≤ 16), {running} taken by "
              "the runner")
        for c in clients:
            c.close()
    with ServerProcess(vectors, tmp / "data7b", "--workers", "1", "--max-queue", "16", "--verify-every", "0",
                       "--max-permutations", "1000000000", "--token", "T0k3n") as srv:
        a = _client(srv.url, "127.0.0.2", {"Authorization": "Bearer T0k3n"})
        b = _client(srv.url, "127.0.0.3", {"Authorization": "Bearer T0k3n"})
        a2 = _client(srv.url, "127.0.0.2", {"Authorization": "bearer  T0k3n"})
        got = {"a": 0, "b": 0}
        waits = []
        for _ in range(12):
            for name, c in (("a", a), ("b", b), ("a", a2)):
                r = c.post("/jobs", json=slow)
                got[name] += r.status_code == 202
                if r.status_code == 429:
                    waits.append(int(r.headers["Retry-After"]))
        print(f"   two clients filling the queue (one of them with two spellings of the token): admitted "
              f"a={got['a']}, b={got['b']} (share {16 // 2} queued each, the first job of one taken by the runner); Retry-After {min(waits)}-{max(waits)} s "
              f"for ~8 admitted jobs each (assumed 30 s per job before any finished, 1 runner)")
        for c in (a, b, a2):
            c.close()


def quick_budget(url: str) -> None:
    words = [f"w{i}" for i in range(5000)]
    big = {"store": "big", "targets_x": words[:5000], "targets_y": words[::-1], "attributes_a": words,
           "attributes_b": words, "permutations": 1_000_000}
    with httpx.Client(base_url=url, timeout=600) as c:
        times = []
        for _ in range(5):
            t = time.perf_counter()
            r = c.post("/weat", json=big)
            times.append(1e3 * (time.perf_counter() - t))
        print(f"   4 × 5,000 words at 10⁶ permutations: {r.status_code} in median {statistics.median(times):.0f} ms "
              f"— {r.json()['error']['message'][:110]}")
        secs = {}
        for n in (20_000, 200_000):  # the difference leaves out the fixed costs (scores, bootstrap)
            t = time.perf_counter()
            r = c.post("/weat", json={**HEAVY, "permutations": n})
            secs[n] = time.perf_counter() - t
            print(f"   4 × 1,000 words at {n:,} permutations: {r.status_code} in {secs[n]:.2f} s")
        rate = (200_000 - 20_000) * 4000 / max(secs[200_000] - secs[20_000], 1e-9)
        fixed = secs[20_000] - 20_000 * 4000 / rate  # the 1,000 resamples' (2,000)² lookups, and the scores
        print(f"   → {rate:.3g} partition-words per second here; the resamples' 4e9 lookups took about {fixed:.2f} s, "
              f"{4e9 / max(fixed, 1e-9) / rate:.0f} lookups per partition-word; the default budget 1e9 ≈ "
              f"{1e9 / rate:.1f} s of work")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=200, help="/neighbors requests per measurement.")
    ap.add_argument("--sections", default="12345678", help="Which sections to run (digits; default all).")
    args = ap.parse_args()
    from geobias.store import VectorStore, save_store

    tmp = Path(tempfile.mkdtemp(prefix="geobias-bench-abuse-"))
    vectors = tmp / "vectors"
    vectors.mkdir()
    save_store(small_french_store(), vectors / "small-fr")
    save_store(VectorStore(WORDS, np.random.default_rng(0).normal(size=(4000, 50)).astype(np.float32)), vectors / "big")
    print(f"cores: {os.cpu_count()}; {load()} (the machine may be shared)")
    # the greedy client's WEATs at the cap must run, not be refused by the quick budget (section 8)
    with ServerProcess(vectors, tmp / "data", "--quick-workers", "2", "--verify-every", "0",
                       "--max-permutations", "1000000", "--quick-budget", "1e13") as srv, srv.client(timeout=120) as c:
        if "1" in args.sections:
            print("1. refusals")
            refusals(c)
        if "2" in args.sections:
            print(f"2. another client's /neighbors under abuse ({load()})")
            neighbors_under_abuse(srv.url, args.rounds)
        if "3" in args.sections:
            print("3. disconnect")
            disconnect(srv)
    if "4" in args.sections:
        print(f"4. SIGTERM ({load()})")
        sigterm(vectors, tmp / "data2")
    if "5" in args.sections:
        print(f"5. hashing ({load()})")
        hashing(tmp)
    if "6" in args.sections:
        print(f"6. hostile vector files ({load()})")
        hostile_uploads(vectors, tmp, args.rounds)
    if "7" in args.sections:
        print(f"7. the job queue ({load()})")
        job_queue(vectors, tmp)
    if "8" in args.sections:
        print(f"8. quick budget ({load()})")
        with ServerProcess(vectors, tmp / "data8", "--quick-workers", "1", "--verify-every", "0") as srv:
            quick_budget(srv.url)


if __name__ == "__main__":
    main()
