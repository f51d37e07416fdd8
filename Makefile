# airtcp: build the Rust core into a local virtualenv and run the demo, the tests or the
# benchmarks. `make demo` and `make test` work on a fresh machine with python3 (>= 3.11 for
# this Makefile), a Rust toolchain (rustup/cargo) and network access to PyPI and crates.io.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
BIN    := $(abspath $(VENV))/bin
VPY    := $(BIN)/python

# maturin, cargo and pyo3 all use the venv's interpreter, so builds agree with each other.
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH        := $(BIN):$(PATH)
export PYO3_PYTHON := $(VPY)

STAMP_VENV  := $(VENV)/.stamp-venv
STAMP_BUILD := $(VENV)/.stamp-build
STAMP_DEV   := $(VENV)/.stamp-dev

# The package is installed in editable mode (python/ is on the venv's path), so Python edits
# take effect at once; the extension is rebuilt when anything Rust-side or the packaging changes.
RUST_SRC := Cargo.toml Cargo.lock $(shell find crates -type f \( -name '*.rs' -o -name 'Cargo.toml' \) 2>/dev/null)

.PHONY: help setup setup-dev rust-tools bpf demo test test-py test-rust test-lint bench bench-htsim bench-ns3-chain validate-ns3 validate-ns3-wifi validate-ns3-manet validate-linux \
        clean distclean

help:
	@echo "make demo    build airtcp into .venv (release), run a PER sweep -> out/demo/ and a quick"
	@echo "             reproduction of the Padhye et al. model -> reports/padhye/quick/index.html"
	@echo "make test    build, then cargo test (profile ci)/fmt/clippy, ruff and pytest"
	@echo "make bench   build, then run the benchmarks (airtcp bench)"
	@echo "make bpf     build the BPF congestion controls in bpf/ (clang, bpftool, libbpf-dev)"
	@echo "make bench-htsim  airtcp against htsim on the wired scale points (HTSIM_SRC=...)"
	@echo "make validate-ns3 airtcp's ns3 TCP profile against ns-3.44 (PyPI wheel) -> docs/validation.md"
	@echo "make validate-ns3-wifi airtcp's ns3 802.11 preset against ns-3.44 on the chain -> docs/validation.md"
	@echo "make validate-ns3-manet AODV, OLSR and mobility against ns-3.44 -> benches/ns3/manet_results.json"
	@echo "make bench-ns3-chain  wall time of airtcp against ns-3.44 on the 16-hop 802.11 chain"
	@echo "             (scenarios/bench_d.toml; RUNS=3 runs each, interleaved)"
	@echo "make clean   remove build stamps and caches; make distclean also removes .venv"

$(STAMP_VENV):
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet "maturin>=1.7,<2"
	@touch $@

# Built with profile-guided optimization where rustc's llvm-profdata is at hand (tools/pgo.py:
# an instrumented build runs the example scenarios first); otherwise the plain release build.
# AIRTCP_PGO=0 asks for the plain build.
$(STAMP_BUILD): $(STAMP_VENV) $(RUST_SRC) pyproject.toml tools/pgo.py tools/pgo/mix.toml
	$(VPY) tools/pgo.py develop
	@touch $@

$(STAMP_DEV): $(STAMP_VENV) pyproject.toml
	$(VPY) -c 'import subprocess, sys, tomllib; \
	  deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["dev"]; \
	  subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", *deps])'
	@touch $@

setup: $(STAMP_BUILD)

setup-dev: $(STAMP_BUILD) $(STAMP_DEV)

rust-tools:
	@command -v cargo >/dev/null || { echo "error: cargo not found; install Rust from https://rustup.rs" >&2; exit 2; }
	@if command -v rustup >/dev/null; then \
	  for c in rustfmt clippy; do \
	    rustup component list --installed 2>/dev/null | grep -q "^$$c" || rustup component add $$c; \
	  done; \
	fi

# The BPF congestion controls (docs/bpf.md); python -m airtcp.bpf registers them.
bpf:
	$(MAKE) -C bpf

demo: setup
	$(BIN)/airtcp demo
	$(BIN)/airtcp reproduce padhye --quick

# Every Rust test runs once, on one build of the core (profile `ci` in Cargo.toml: optimized,
# with integer overflow and debug assertions checked, without LTO).
# The three parts share no build (each profile has its own target directory) and run at once,
# each one's output printed when it ends: the extension's build then the Python tests, which
# take longest, and, niced so that they fill the cores the former leave idle, the Rust tests
# and the Rust lints.
test: rust-tools
	$(MAKE) --no-print-directory -j3 --output-sync=target test-py test-rust test-lint
	$(BIN)/pytest -q -m kernel

test-rust:
	nice -n 10 cargo test --workspace --profile ci

test-lint:
	cargo fmt --all -- --check
	nice -n 10 cargo clippy --workspace --all-targets -- -D warnings

# The dev packages are installed before the extension is built: both install into the venv.
# The tests that hold the kernel's state (registered BPF programs, `make -C bpf`) and judge
# real-time transfers (marker `kernel`) run on their own once everything else has finished
# (`test` runs them last), so that no test or build competes with them for the cores.
test-py: $(STAMP_DEV)
	$(BIN)/ruff check python tests benches tools
	$(BIN)/ruff format --check python tests benches tools
	$(MAKE) --no-print-directory setup
	$(BIN)/pytest -q -n $${PYTEST_WORKERS:-logical} -m "not kernel"

bench: setup
	$(BIN)/airtcp bench

clean:
	rm -rf $(STAMP_BUILD) $(STAMP_DEV) .pytest_cache .ruff_cache

distclean: clean
	rm -rf $(VENV)

# airtcp against htsim on the wired scale points (not in CI: needs htsim's source, a checkout or
# bare clone of Broadcom/csg-htsim, in HTSIM_SRC). See docs/benchmarks.md.
# ns-3.44's C++ headers and libraries come from its PyPI wheel; its Python bindings (and their
# cppyy dependency) are not needed, hence --no-deps.
.ns3venv/.stamp:
	$(PYTHON) -m venv .ns3venv
	.ns3venv/bin/pip install --quiet --no-deps "ns3==3.44.post0"
	@touch $@

validate-ns3: setup .ns3venv/.stamp
	$(VPY) validation/ns3/run.py $(NS3_ARGS)

# Not in CI: airtcp's `ns3` 802.11 preset against ns-3.44 on the 200 m chain (1-16 hops,
# SEEDS seeds each, about 10 s of one core per ns-3 run), two crossing chains, saturated
# stations around a sink and PER against SNR -> docs/validation.md.
validate-ns3-wifi: setup .ns3venv/.stamp
	$(VPY) benches/ns3/validate_wifi.py --seeds $${SEEDS:-10} --cross 4,8 --write $(NS3_ARGS)
	$(VPY) benches/ns3/validate_wifi.py --seeds $${SAT_SEEDS:-5} --hops '' \
	  --saturation 1,5,10,20 --duration 20 --write
	$(VPY) benches/ns3/validate_wifi.py --per --write

# Not in CI: AODV, OLSR and ns-2 movement files against ns-3.44 (benches/ns3/manet.cc): chains,
# a node walking away and back, 50-node random waypoint. Runs missing from
# benches/ns3/manet_results.json only; PARTS=chain,cbr,walk, SEEDS (chain, walk), CBR_SEEDS.
validate-ns3-manet: setup .ns3venv/.stamp
	$(VPY) benches/ns3/validate_manet.py --parts $${PARTS:-chain,cbr,walk} --seeds $${SEEDS:-10} \
		--cbr-seeds $${CBR_SEEDS:-5} $(NS3_ARGS)

# Not in CI (root; about 30 min of wall time): kernel TCP through `airtcp emulate` against
# the `linux` TCP profile on the same path, reno/cubic/bbr at 5 PERs -> docs/validation.md.
validate-linux: setup
	$(VPY) benches/validate_linux.py --runs $${RUNS:-5} --write

# Not in CI: airtcp's benchmark d against benches/ns3/wifi_chain.cc built on the same wheel
# (benches/ns3/README.md). Each ns-3 run takes about 15 s of one core.
bench-ns3-chain: setup .ns3venv/.stamp
	$(VPY) benches/ns3/chain.py --runs $${RUNS:-3}

bench-htsim: setup
	$(VPY) benches/htsim/run.py --runs $${RUNS:-5}
