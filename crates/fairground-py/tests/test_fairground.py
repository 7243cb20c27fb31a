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
    for p in fairground.policies():
        assert p["summary"] and p["family"]
        assert f"  {p['name']:<22} [{p['family']}] {p['summary']}\n" in listed
    assert [p["family"] for p in fairground.policies()][:2] == ["OEF", "OEF"]


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


# --- simulate ---------------------------------------------------------------------------------

import sys

sys.path.insert(0, str(ROOT / "crates" / "fairground-py" / "examples"))
from fifo import Fifo  # noqa: E402

CLUSTER = "v100=4,p100=4,k80=4"


def cli_simulate(*args):
    out = subprocess.run([CLI, "simulate", *args, "--json"], capture_output=True, text=True, check=True)
    runs = json.loads(out.stdout)
    return runs if isinstance(runs, list) else [runs]


def without_peak_memory(summary):
    """The CLI adds the process's peak memory to its notes; a Python call has no such line."""
    return {**summary, "notes": [n for n in summary["notes"] if not n.startswith("peak memory")]}


def rows(jobs):
    """The per-job outcomes as a list of dicts, from a DataFrame (where pandas shows a missing
    value, the JSON's null, as NaN) or a list."""
    if hasattr(jobs, "to_dict"):
        missing = lambda v: isinstance(v, float) and v != v  # noqa: E731
        return [{k: None if missing(v) else v for k, v in r.items()} for r in jobs.to_dict("records")]
    return jobs


def test_simulate_equals_the_cli():
    ours = fairground.simulate(50, CLUSTER, ["fifo", "gavel-las"], tenants=3, seed=4)
    theirs = cli_simulate("--synthetic", "50", "--cluster", CLUSTER, "--policy", "fifo",
                          "--policy", "gavel-las", "--tenants", "3", "--seed", "4")
    assert list(ours["policies"]) == ["fifo", "gavel-las"]
    for run in theirs:
        jobs = run.pop("jobs")
        assert ours["policies"][run["policy"]] == without_peak_memory(run)
        mine = [{k: v for k, v in r.items() if k != "policy"} for r in rows(ours["jobs"]) if r["policy"] == run["policy"]]
        assert mine == jobs


def test_todays_gpus_from_python_and_its_located_errors():
    cluster = "h100=8,a100-80=8,a100-40=8,rtx6000-ada=8,a10=8,v100=8"
    ours = fairground.simulate(30, cluster, ["oef-coop"], throughputs="todays-gpus")
    assert ours["policies"]["oef-coop"]["jobs_completed"] == 30
    with pytest.raises(ValueError, match="policy 'sjf-bsbf' shares GPUs"):
        fairground.simulate(5, cluster, ["sjf-bsbf"], throughputs="todays-gpus")
    with pytest.raises(ValueError, match="unexpected argument '--no-such-flag'"):
        fairground.simulate(5, CLUSTER, ["fifo"], no_such_flag=1)
    with pytest.raises(ValueError, match="unknown policy|no policy|not a"):
        fairground.simulate(5, CLUSTER, ["fifoo"])


def test_the_rule_inside_tenants_from_python():
    args = ("--synthetic", "40", "--cluster", CLUSTER, "--policy", "oef-coop", "--tenants", "3",
            "--share-among", "tenants")
    for rule in ["fairness", "fifo", "equal-time"]:
        ours = fairground.simulate(40, CLUSTER, ["oef-coop"], tenants=3, share_among="tenants",
                                   within_tenant=rule)
        (theirs,) = cli_simulate(*args, "--within-tenant", rule)
        theirs.pop("jobs")
        assert ours["policies"]["oef-coop"] == without_peak_memory(theirs)
        fairness = ours["policies"]["oef-coop"]["tenant_fairness"]
        assert fairness.get("within_tenant") == (None if rule == "equal-time" else rule)
    with pytest.raises(ValueError, match="--within-tenant 'fair': give fairness"):
        fairground.simulate(5, CLUSTER, ["oef-coop"], share_among="tenants", within_tenant="fair")
    with pytest.raises(ValueError, match="--within-tenant fifo: gavel-ftf's shares are per job"):
        fairground.simulate(5, CLUSTER, ["gavel-ftf"], share_among="tenants", within_tenant="fifo")


def test_a_python_fifo_reproduces_the_engines_fifo_exactly():
    engine = fairground.simulate(80, CLUSTER, ["fifo"], seed=2, tenants=4)
    python = fairground.simulate(80, CLUSTER, scheduler=Fifo(), seed=2, tenants=4)
    assert list(python["policies"]) == ["fifo-python"]
    ours, theirs = engine["policies"]["fifo"], python["policies"]["fifo-python"]
    for key in ["jobs_completed", "avg_jct_s", "makespan_s", "utilization", "gantt"]:
        assert ours[key] == theirs[key], key
    strip = lambda rs: [{k: v for k, v in r.items() if k != "policy"} for r in rs]  # noqa: E731
    assert strip(rows(engine["jobs"])) == strip(rows(python["jobs"]))


def test_the_round_cost_script_times_the_same_run_both_ways(capsys):
    import round_cost

    round_cost.main(["round_cost.py", "python", "40", "0.3"])
    round_cost.main(["round_cost.py", "engine", "40", "0.3"])
    python, engine = capsys.readouterr().out.splitlines()
    assert python.startswith("fifo-python: ") and engine.startswith("fifo: ")
    assert python.split(": ", 1)[1] == engine.split(": ", 1)[1]
    with pytest.raises(SystemExit, match="usage"):
        round_cost.main(["round_cost.py", "rust", "40", "0.3"])


class Greedy:
    """Asks for more GPUs than a type has free: the engine refuses, naming the placement."""

    def place(self, view):
        return [{"job": job["job"], "type": "v100", "gpus": 99} for job in view["active"][:1]]


class Broken:
    def place(self, view):
        raise RuntimeError("my scheduler broke")


def test_a_bad_python_placement_is_located_and_its_exception_is_raised():
    with pytest.raises(ValueError, match=r"the round at 0 s, placement 0: job \d+ asks 99 GPU\(s\) of v100, and 4 are free"):
        fairground.simulate(5, CLUSTER, scheduler=Greedy())
    with pytest.raises(RuntimeError, match="my scheduler broke"):
        fairground.simulate(5, CLUSTER, scheduler=Broken())


def test_jobs_are_a_dataframe_with_pandas_and_a_list_without(monkeypatch):
    pandas = pytest.importorskip("pandas")
    run = fairground.simulate(20, CLUSTER, ["fifo", "las"])
    assert isinstance(run["jobs"], pandas.DataFrame)
    assert len(run["jobs"]) == 40
    assert set(run["jobs"]["policy"]) == {"fifo", "las"}
    assert {"id", "tenant", "arrival_s", "jct_s"} <= set(run["jobs"].columns)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    plain = fairground.simulate(20, CLUSTER, ["fifo", "las"])
    assert isinstance(plain["jobs"], list)
    assert rows(run["jobs"]) == plain["jobs"]


def test_sweep_equals_the_cli(tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'policy = ["fifo", "gavel-las"]\nsynthetic = 20\nseed = [0, 1]\n'
        'cluster = "v100=4,p100=4,k80=4"\n'
    )
    ours = fairground.sweep(spec, tmp_path / "py", threads=1)
    subprocess.run([CLI, "sweep", str(spec), "--out", str(tmp_path / "cli"), "--threads", "1"],
                   capture_output=True, check=True)
    import csv

    with open(tmp_path / "cli" / "results.csv", newline="") as f:
        theirs = list(csv.DictReader(f))
    assert len(theirs) == 4
    mine = rows(ours) if hasattr(ours, "to_dict") else ours
    assert [r["case"] for r in mine] == [r["case"] for r in theirs]
    # Same figures, but for each simulation's wall time (read back as text, then compared).
    for a, b in zip(mine, theirs):
        for key in ["policy", "jobs_done", "avg_jct_h", "makespan_h"]:
            assert str(a[key]) == b[key] or float(a[key]) == float(b[key]), key
    with pytest.raises(ValueError, match="clustr"):
        bad = tmp_path / "bad.toml"
        bad.write_text('policy = "fifo"\nsynthetic = 5\nclustr = "v100=1"\n')
        fairground.sweep(bad, tmp_path / "bad")


def test_simulate_releases_the_gil_and_stops_on_ctrl_c():
    import _thread
    import threading
    import time

    # Another Python thread runs while the engine simulates.
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        fairground.simulate(2000, CLUSTER, ["fifo"], jobs_per_hour=6)
    finally:
        stop.set()
        ticker.join()
    assert len(ticks) > 10

    # Ctrl+C (SIGINT to the main thread) stops a long run with KeyboardInterrupt.
    # The run is far longer than the timer (minutes), so the interrupt lands inside it.
    # Python's own SIGINT handler, whatever the test was started under: a shell starts a
    # background job with SIGINT ignored, and Python then never installs it.
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.3, _thread.interrupt_main).start()
        with pytest.raises(KeyboardInterrupt):
            fairground.simulate(100000, "v100=100,p100=100,k80=100", ["gavel-las"], jobs_per_hour=30)
    finally:
        signal.signal(signal.SIGINT, before)
