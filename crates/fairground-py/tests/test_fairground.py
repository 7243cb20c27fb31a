"""The Python package against the CLI: the same inputs give exactly the CLI's JSON, bad input
raises ValueError with the CLI's located message, and a hand-solved case comes out as solved.

Run by `cargo xtask test` (and `cargo xtask py-test`) with FAIRGROUND_CLI naming the CLI binary
built from the same commit."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import fairground

ROOT = Path(__file__).resolve().parents[3]
CLI = os.environ.get("FAIRGROUND_CLI", str(ROOT / "target" / "debug" / "fairground"))

# Three uncapped tenants, weights 1, 1, 3: solved by hand in fairground-core's
# tests/weighted_envy.rs (oef-coop's efficiency is 1010/47), and run through the CLI in
# fairground-cli's tests/verdicts.rs.
WEIGHTED = {
    "gpu_types": [{"name": "x", "count": 5}, {"name": "y", "count": 5}],
    "tenants": [
        {"name": "a", "throughput": [1, 4], "weight": 1},
        {"name": "b", "throughput": [1, 1], "weight": 1},
        {"name": "c", "throughput": [1, 3], "weight": 3},
    ],
}


def cli_json(*args, scenario):
    """The CLI's JSON for `args` on `scenario` (given on standard input)."""
    out = subprocess.run(
        [CLI, *args, "-", "--json"],
        input=json.dumps(scenario),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def example(name):
    return json.loads((ROOT / "www" / "scenarios" / name).read_text())


@pytest.mark.parametrize("name", ["gavel-measured.json", "todays-cluster.json", "textbook-2x2.json"])
@pytest.mark.parametrize("policy", ["oef-coop", "gavel-las", "nash-welfare"])
def test_solve_equals_the_cli(name, policy):
    scenario = example(name)
    ours = fairground.solve(scenario, policy=policy)
    assert ours == cli_json("solve", "--policy", policy, "--no-sp-probe", scenario=scenario)


def test_compare_and_frontier_equal_the_cli():
    scenario = example("gavel-measured.json")
    assert fairground.compare(scenario) == cli_json("compare", scenario=scenario)
    ours = fairground.frontier(scenario, step=0.25)
    assert ours == cli_json("frontier", "--step", "0.25", scenario=scenario)


def test_a_hand_solved_case():
    report = fairground.solve(WEIGHTED)
    assert report["policy"] == "oef-coop"
    assert report["efficiency"] == pytest.approx(1010 / 47, abs=1e-9)
    assert report["properties"]["envy_freeness"]["holds"] is True
    # The allocation hands out exactly the 5 + 5 GPUs.
    for j in range(2):
        assert sum(row[j] for row in report["allocation"]) == pytest.approx(5.0, abs=1e-9)


def test_json_text_and_the_probe():
    report = fairground.solve(json.dumps(WEIGHTED), probe=True)
    probe = report["properties"]["strategy_proofness_probe"]
    assert probe is not None
    assert report == cli_json("solve", scenario=WEIGHTED)


def test_policies_are_the_engines():
    names = [p["name"] for p in fairground.policies()]
    assert "oef-coop" in names and "gavel-las" in names
    listed = subprocess.run([CLI, "policies"], capture_output=True, text=True, check=True).stdout
    for name in names:
        assert f"  {name} " in listed
    assert all(p["summary"] for p in fairground.policies())


def test_bad_input_raises_a_located_value_error():
    bad = {"gpu_types": [{"name": "v100", "count": 2}], "tenants": [{"name": "a", "throughput": [-1]}]}
    with pytest.raises(ValueError, match=r"tenants\[0\]\.throughput\[0\]: must be finite and >= 0"):
        fairground.solve(bad)
    typo = {"gpu_types": [{"name": "v100", "count": 2}], "tenants": [{"name": "a", "throughput": ["four"]}]}
    with pytest.raises(ValueError, match=r'tenants\[0\]\.throughput\[0\]: invalid type: string "four"'):
        fairground.solve(typo)
    with pytest.raises(ValueError, match=r"unknown policy 'oef' \(policies: oef-coop"):
        fairground.solve(WEIGHTED, policy="oef")
    with pytest.raises(ValueError):
        fairground.frontier(WEIGHTED, step=0.0)
