"""The extension as built (with profile-guided optimization where the toolchain allows it)
gives the golden results, and the build tool picks only an llvm-profdata of rustc's LLVM."""

from __future__ import annotations

import importlib.util
import os
import stat
from pathlib import Path

import pytest

from airtcp import _core

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"


def _golden_cases() -> list[Path]:
    return sorted(GOLDEN.glob("*.scenario.json"))


def test_there_are_golden_cases():
    assert len(_golden_cases()) > 100


@pytest.mark.parametrize("case", _golden_cases(), ids=lambda p: p.name.split(".")[0])
def test_installed_extension_reproduces_the_golden_result(case: Path):
    # The Rust golden test checks the plain build; this checks the build users run, which
    # may be profile-guided: an optimization must not move a single byte of a result.
    want = case.with_name(case.name.replace(".scenario.json", ".result.json")).read_text()
    assert _core.run_json(case.read_text()) + "\n" == want


def _pgo():
    spec = importlib.util.spec_from_file_location("pgo_tool", ROOT / "tools" / "pgo.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _fake_tool(path: Path, major: str) -> Path:
    path.write_text(f"#!/bin/sh\necho 'Ubuntu LLVM version {major}.1.0'\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_profdata_of_another_llvm_is_not_used(tmp_path, monkeypatch):
    pgo = _pgo()
    _fake_tool(tmp_path / "llvm-profdata", "14")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("LLVM_PROFDATA", raising=False)
    monkeypatch.setattr(pgo.subprocess, "run", _no_sysroot(pgo.subprocess.run))
    assert pgo.find_profdata("99") is None


def test_profdata_of_rustcs_llvm_is_found_by_its_versioned_name(tmp_path, monkeypatch):
    pgo = _pgo()
    _fake_tool(tmp_path / "llvm-profdata", "14")
    want = _fake_tool(tmp_path / "llvm-profdata-99", "99")
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("LLVM_PROFDATA", raising=False)
    assert pgo.find_profdata("99") == str(want)


def test_llvm_profdata_variable_is_checked_too(tmp_path, monkeypatch):
    pgo = _pgo()
    monkeypatch.setenv("LLVM_PROFDATA", str(_fake_tool(tmp_path / "mine", "98")))
    assert pgo.find_profdata("98") == str(tmp_path / "mine")
    assert pgo.find_profdata("97") is None


def test_pgo_off_builds_plain_and_says_so(monkeypatch, capsys):
    pgo = _pgo()
    monkeypatch.setenv("AIRTCP_PGO", "0")
    assert pgo.train() is None
    assert "plain release build" in capsys.readouterr().err
    assert pgo.optimized_env(None).get("RUSTFLAGS") == os.environ.get("RUSTFLAGS")


def test_profile_build_has_its_own_target_dir(tmp_path):
    pgo = _pgo()
    env = pgo.optimized_env(tmp_path / "p.profdata")
    assert f"-Cprofile-use={tmp_path / 'p.profdata'}" in env["RUSTFLAGS"]
    assert env["CARGO_TARGET_DIR"] != str(ROOT / "target")


def test_training_set_leaves_out_the_benchmark_scenarios():
    pgo = _pgo()
    for f in pgo.TRAINING:
        assert (ROOT / f).is_file(), f
        assert "bench" not in Path(f).name, f


def _no_sysroot(run):
    def wrapped(cmd, *a, **k):
        if cmd[:2] == ["rustc", "--print"]:
            raise OSError("no rustc in this test")
        return run(cmd, *a, **k)

    return wrapped


def test_a_failed_training_falls_back_to_the_plain_build(monkeypatch, capsys):
    pgo = _pgo()

    def fail():
        raise pgo.subprocess.CalledProcessError(1, ["llvm-profdata", "merge"])

    monkeypatch.setattr(pgo, "_train", fail)
    assert pgo.train() is None
    assert "building without it" in capsys.readouterr().err
