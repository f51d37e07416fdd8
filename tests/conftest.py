from __future__ import annotations

import copy
from pathlib import Path

import pytest

import airtcp

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
DUMBBELL = SCENARIOS / "dumbbell.toml"


@pytest.fixture
def dumbbell_path() -> Path:
    return DUMBBELL


@pytest.fixture(scope="session")
def _dumbbell_dict() -> dict:
    return airtcp.Scenario.from_toml(DUMBBELL).to_dict()


@pytest.fixture
def dumbbell_dict(_dumbbell_dict) -> dict:
    """The example dumbbell as a dict, shortened to 10 s to keep the tests fast."""
    d = copy.deepcopy(_dumbbell_dict)
    d["duration"] = "10s"
    return d


@pytest.fixture
def short_dumbbell(dumbbell_dict) -> airtcp.Scenario:
    return airtcp.Scenario.from_dict(dumbbell_dict)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The long tests first (stable sort: the rest keep their order), so that with `pytest -n`
    # no worker is left with one of them after the others have run out of tests.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
