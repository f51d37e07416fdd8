"""Build airtcp's core with profile-guided optimization (PGO) when the toolchain allows it.

``python tools/pgo.py develop`` builds the Python extension into the active virtualenv (what
``maturin develop --release`` does), and ``python tools/pgo.py bench`` builds the core's
benchmark example and prints its path. Both first build an instrumented core, run it on the
training scenarios below, merge the profile with ``llvm-profdata`` and build again with it:
the simulator's results are the same either way (the profile only guides inlining, code
layout and branch order), only faster.

PGO needs an ``llvm-profdata`` of the LLVM major version that rustc uses (``rustc -vV``):
``$LLVM_PROFDATA``, ``llvm-profdata-<major>`` or ``llvm-profdata`` on the PATH, or rustup's
``llvm-tools`` component. Without one, or with ``AIRTCP_PGO=0`` or ``--no-pgo``, the build is
the plain release build and a note says so.

The training runs are the example scenarios and ``tools/pgo/mix.toml`` (eight schemes and
stacks on a dumbbell with RED and lossy last hops), never the benchmark scenarios
(``scenarios/bench_*.toml``, the htsim scale points), so a benchmark does not measure a build
trained on itself.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRAINING = [
    "scenarios/dumbbell.toml",
    "scenarios/chain4_wifi.toml",
    "scenarios/cross4_wifi.toml",
    "scenarios/grid3x3_tdma.toml",
    "scenarios/snr_gate.toml",
    "tools/pgo/mix.toml",
]


def note(msg: str) -> None:
    print(f"pgo: {msg}", file=sys.stderr, flush=True)


def llvm_major() -> str | None:
    try:
        out = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"^LLVM version: (\d+)", out, re.M)
    return m.group(1) if m else None


def _version_of(tool: str) -> str | None:
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"LLVM version (\d+)", out.stdout + out.stderr)
    return m.group(1) if m else None


def find_profdata(major: str) -> str | None:
    """An llvm-profdata that reads the profiles rustc's LLVM writes (same major version)."""
    cands = []
    if os.environ.get("LLVM_PROFDATA"):
        cands.append(os.environ["LLVM_PROFDATA"])
    for name in (f"llvm-profdata-{major}", "llvm-profdata"):
        path = shutil.which(name)
        if path:
            cands.append(path)
    try:
        sysroot = subprocess.run(
            ["rustc", "--print", "sysroot"], check=True, capture_output=True, text=True
        ).stdout.strip()
        cands += [str(p) for p in Path(sysroot).glob("lib/rustlib/*/bin/llvm-profdata")]
    except (OSError, subprocess.CalledProcessError):
        pass
    for tool in cands:
        if _version_of(tool) == major:
            return tool
    return None


def _rustflags(extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["RUSTFLAGS"] = " ".join(x for x in (env.get("RUSTFLAGS", ""), extra) if x)
    return env


def train() -> Path | None:
    """The profile's path, or None (with a note saying why) for the plain build."""
    try:
        return _train()
    except subprocess.CalledProcessError as e:
        # A profile is an optimization: failing to make one must not fail the build.
        note(f"making the profile failed ({e}); building without it")
        return None


def _train() -> Path | None:
    """Build the instrumented core, run the training scenarios, merge: the profile's path."""
    if os.environ.get("AIRTCP_PGO", "1") == "0":
        note("AIRTCP_PGO=0: plain release build")
        return None
    major = llvm_major()
    tool = find_profdata(major) if major else None
    if tool is None:
        note(
            f"no llvm-profdata for LLVM {major or '?'} (rustc's); building without "
            "profile-guided optimization (a few per cent slower). For it: "
            f"`apt install llvm-{major or 'N'}` or `rustup component add llvm-tools`"
        )
        return None
    base = ROOT / "target" / "pgo"
    raw = base / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    note(f"instrumented build (profiles to {raw})")
    env = _rustflags(f"-Cprofile-generate={raw}")
    env["CARGO_TARGET_DIR"] = str(base / "gen")
    cmd = ["cargo", "build", "--quiet", "--release", "-p", "airtcp-core", "--example", "bench"]
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    # The build scripts ran instrumented too; only the training runs' profiles are kept.
    for f in raw.glob("*.profraw"):
        f.unlink()
    exe = base / "gen" / "release" / "examples" / "bench"
    note(f"training on {len(TRAINING)} scenarios")
    subprocess.run([str(exe), *TRAINING], check=True, cwd=ROOT, stdout=subprocess.DEVNULL, env=env)
    profile = base / "airtcp.profdata"
    subprocess.run(
        [tool, "merge", "-o", str(profile), *map(str, sorted(raw.glob("*.profraw")))],
        check=True,
    )
    return profile


def optimized_env(profile: Path | None) -> dict[str, str]:
    """Environment for a cargo or maturin build with the profile (its own target dir, so it
    does not rebuild, and is not rebuilt by, the plain builds in target/)."""
    if profile is None:
        return dict(os.environ)
    env = _rustflags(f"-Cprofile-use={profile}")
    env["CARGO_TARGET_DIR"] = str(ROOT / "target" / "pgo" / "use")
    return env


def develop(profile: Path | None) -> None:
    maturin = shutil.which("maturin")
    if maturin is None:
        sys.exit("pgo: maturin not found on the PATH (make setup installs it into .venv)")
    subprocess.run(
        [maturin, "develop", "--release"], check=True, cwd=ROOT, env=optimized_env(profile)
    )
    note("extension built " + ("with the profile" if profile else "without a profile"))


def bench(profile: Path | None) -> Path:
    env = optimized_env(profile)
    cmd = ["cargo", "build", "--quiet", "--release", "-p", "airtcp-core", "--example", "bench"]
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    target = Path(env.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "examples" / "bench"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["develop", "bench"])
    ap.add_argument("--no-pgo", action="store_true", help="the plain release build")
    args = ap.parse_args(argv)
    profile = None if args.no_pgo else train()
    if args.what == "develop":
        develop(profile)
    else:
        print(bench(profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
