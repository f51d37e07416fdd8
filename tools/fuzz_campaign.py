"""Run many hostile scenarios (tools/scenario_fuzz.py), each in a worker process with a time
and memory limit, and print what happened:

    python tools/fuzz_campaign.py --cases 10000 --jobs 2

Case N is the same scenario on every machine (a seeded generator), so a finding is
reproduced with ``--show N`` (prints the scenario) and ``--case N`` (runs it here).

Counts: ``clean errors`` (a ScenarioError or ``error: <path>: ...`` naming a field), ``ok
runs`` (packets conserved), ``stopped by a budget`` (events, memory or wall time; the error
names a field and the partial result conserves packets; by budget below it), and the
findings: ``panics`` (the core's SimulationError),
``aborts`` (the worker process killed by a signal: a failed allocation under the memory
limit, a crash), ``hangs`` (no answer within the time limit), ``tracebacks`` (any other
exception), ``unnamed errors`` (a refusal that names no field) and ``violations`` (a run
that does not conserve packets). Workers run at the campaign's own niceness.
"""

from __future__ import annotations

import argparse
import collections
import json
import queue
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FINDINGS = ("panic", "abort", "hang", "traceback", "unnamed", "violation")


# --------------------------------------------------------------------------------------------
# The worker: reads case numbers on stdin, answers one JSON line each


def worker(memory_mb: int, run_timeout: float | None) -> None:
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.path.insert(0, str(HERE))
    import scenario_fuzz as sf

    # The memory budget is the default one: a quarter of the address space left.
    sf.LIMITS["timeout"] = run_timeout

    with sf.hostile_dir() as wd:
        for line in sys.stdin:
            i = int(line)
            name, mode, d = sf.case(i)
            t0 = time.perf_counter()
            verdict = sf.run_case(d, mode, wd)
            verdict.update(case=i, base=name, mode=mode, wall_s=time.perf_counter() - t0)
            sys.stdout.write(json.dumps(verdict) + "\n")
            sys.stdout.flush()


# --------------------------------------------------------------------------------------------
# The driver


class Slot:
    """One worker process, restarted after it dies or hangs."""

    def __init__(self, memory_mb: int, timeout: float, run_timeout: float | None) -> None:
        self.memory_mb = memory_mb
        self.timeout = timeout
        self.run_timeout = run_timeout
        self.proc: subprocess.Popen[str] | None = None
        # A file, not a pipe: a worker that writes much to stderr must not block on it.
        self.stderr = tempfile.TemporaryFile()

    def _start(self) -> subprocess.Popen[str]:
        self.stderr.seek(0)
        self.stderr.truncate()

        def no_core() -> None:  # an aborting case must not leave a core file behind
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker",
             "--memory", str(self.memory_mb)]
            + (["--run-timeout", str(self.run_timeout)] if self.run_timeout else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            text=True,
            preexec_fn=no_core,
        )  # fmt: skip

    def run(self, i: int) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        p = self.proc
        assert p.stdin is not None and p.stdout is not None
        t0 = time.perf_counter()
        try:
            p.stdin.write(f"{i}\n")
            p.stdin.flush()
        except BrokenPipeError:
            return self._died(i, t0)
        ready, _, _ = select.select([p.stdout], [], [], self.timeout)
        if not ready:
            p.kill()
            p.wait()
            self.proc = None
            return {"case": i, "outcome": "hang", "detail": f"no answer in {self.timeout:g} s"}
        line = p.stdout.readline()
        if not line:
            return self._died(i, t0)
        return json.loads(line)

    def _died(self, i: int, t0: float) -> dict[str, Any]:
        p = self.proc
        assert p is not None
        code = p.wait()
        self.stderr.seek(0)
        err = self.stderr.read()[-600:].decode("utf-8", "replace")
        self.proc = None
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit {code}"
        return {
            "case": i,
            "outcome": "abort",
            "detail": f"{how}: {err.strip()}",
            "wall_s": time.perf_counter() - t0,
        }

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()


def campaign(args: argparse.Namespace) -> int:
    todo: queue.Queue[int] = queue.Queue()
    for i in range(args.start, args.start + args.cases):
        todo.put(i)
    results: list[dict[str, Any]] = []
    lock = threading.Lock()
    t0 = time.perf_counter()

    def drive() -> None:
        slot = Slot(args.memory, args.timeout, args.run_timeout)
        try:
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                res = slot.run(i)
                with lock:
                    results.append(res)
                    n = len(results)
                    if res["outcome"] in FINDINGS:
                        print(f"finding: case {i}: {res['outcome']}: {res['detail'][:300]}",
                              file=sys.stderr, flush=True)  # fmt: skip
                    if not args.quiet and n % 500 == 0:
                        print(f"{n}/{args.cases} cases, {time.perf_counter() - t0:.0f} s",
                              file=sys.stderr, flush=True)  # fmt: skip
        finally:
            slot.close()

    threads = [threading.Thread(target=drive) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0

    count = collections.Counter(r["outcome"] for r in results)
    slowest = max(results, key=lambda r: r.get("wall_s", 0.0))
    rows = [
        ("cases", len(results)),
        ("clean errors", count["error"]),
        ("ok runs", count["ok"]),
        ("stopped by a budget", count["budget"]),
        ("panics", count["panic"]),
        ("aborts", count["abort"]),
        ("hangs", count["hang"]),
        ("tracebacks", count["traceback"]),
        ("unnamed errors", count["unnamed"]),
        ("violations", count["violation"]),
    ]
    stops = collections.Counter(r["detail"].split()[0] for r in results if r["outcome"] == "budget")
    width = max(len(k) for k, _ in rows)
    run_budget = f", runs stopped after {args.run_timeout:g} s" if args.run_timeout else ""
    print(f"hostile scenarios {args.start}..{args.start + args.cases - 1}, {args.jobs} jobs, "
          f"{args.timeout:g} s and {args.memory} MiB per case{run_budget}")  # fmt: skip
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
        if k == "stopped by a budget":
            for kind in ("max_events", "memory_budget", "timeout"):
                print(f"    {kind:<{width - 2}}  {stops[kind]}")
    print(f"  {'wall time':<{width}}  {wall:.0f} s (slowest case {slowest['case']}: "
          f"{slowest.get('wall_s', 0.0):.1f} s)")  # fmt: skip
    by_base = collections.Counter((r.get("base", "?"), r.get("mode", "?")) for r in results)
    if args.verbose:
        for (b, m), n in sorted(by_base.items()):
            print(f"  {b} via {m}: {n}")
    if args.report:
        Path(args.report).write_text("\n".join(json.dumps(r) for r in results) + "\n")
    return 1 if any(count[f] for f in FINDINGS) else 0


def show(i: int, run: bool) -> int:
    sys.path.insert(0, str(HERE))
    import scenario_fuzz as sf

    name, mode, d = sf.case(i)
    print(f"case {i}: base {name}, via {mode}")
    try:
        print(json.dumps(d, indent=1, default=repr)[:20000])
    except (ValueError, RecursionError) as e:
        print(f"(not printable as JSON: {e})")
    if run:
        with sf.hostile_dir() as wd:
            print(sf.run_case(d, mode, wd))
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--start", type=int, default=0, help="first case number")
    p.add_argument("--jobs", type=int, default=2, help="worker processes")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds a case may take")
    p.add_argument("--memory", type=int, default=3072, help="MiB of address space per worker")
    p.add_argument(
        "--run-timeout",
        type=float,
        default=20.0,
        help="wall-time budget of a run (a run past it is stopped and counted, not a hang); "
        "0: none",
    )
    p.add_argument("--report", metavar="FILE", help="write every verdict as JSON lines")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--verbose", action="store_true", help="cases per base scenario and mode")
    p.add_argument("--show", type=int, metavar="N", help="print case N")
    p.add_argument("--case", type=int, metavar="N", help="print and run case N here")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.memory, args.run_timeout or None)
        return 0
    if args.show is not None or args.case is not None:
        return show(args.case if args.case is not None else args.show, args.case is not None)
    if args.cases < 1 or args.jobs < 1:
        p.error("--cases and --jobs must be >= 1")
    return campaign(args)


if __name__ == "__main__":
    sys.exit(main())
