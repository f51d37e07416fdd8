"""Progress of a sweep: a bar on a terminal, a line every PROGRESS_INTERVAL seconds elsewhere."""

from __future__ import annotations

import math
import sys
import time

#: seconds between progress lines when stderr is not a terminal
PROGRESS_INTERVAL = 30.0


class _Progress:
    """A tqdm bar on a terminal; elsewhere a line every PROGRESS_INTERVAL seconds."""

    def __init__(self, total: int, desc: str, enabled: bool | None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.t0 = time.monotonic()
        self.last = self.t0
        self.desc = desc
        tty = sys.stderr.isatty()
        # In a notebook stderr is no terminal, but a bar (a widget there) still belongs.
        notebook = "ipykernel" in sys.modules
        self.enabled = enabled if enabled is not None else True
        self.bar = None
        if self.enabled and (tty or notebook) and total:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)

    def update(self, failed: int, n: int = 1) -> None:
        """``n`` more runs are done, ``failed`` of them failed (or lost)."""
        self.done += n
        self.failed += failed
        if self.bar is not None:
            self.bar.update(n)
            if failed:
                self.bar.set_postfix(failed=self.failed, refresh=False)
            return
        now = time.monotonic()
        if self.enabled and now - self.last >= PROGRESS_INTERVAL and self.done < self.total:
            self.last = now
            rate = self.done / (now - self.t0)
            eta = (self.total - self.done) / rate if rate > 0 else math.inf
            print(
                f"{self.desc}: {self.done}/{self.total} runs, {self.failed} failed, "
                f"{now - self.t0:.0f} s elapsed, ETA {_fmt_s(eta)}",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _fmt_s(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"
