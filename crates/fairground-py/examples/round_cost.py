"""What a round costs across the Python boundary: one run of Fifo (fifo.py, in Python) or of the
engine's own `fifo`, on 48 GPUs, 4 tenants, seed 1. Time it whole, e.g.

    hyperfine --runs 5 'python round_cost.py python 300 0.3' 'python round_cost.py engine 300 0.3'

and divide the difference by the rounds it prints. BENCHMARKS.md's Python section is measured
with it.
"""

import math
import sys

import fairground
from fifo import Fifo

CLUSTER = "v100=16,p100=16,k80=16"


def main(argv):
    if len(argv) != 4 or argv[1] not in ("python", "engine"):
        sys.exit("usage: python round_cost.py {python,engine} JOBS JOBS_PER_HOUR")
    which, jobs, rate = argv[1], int(argv[2]), float(argv[3])
    if which == "python":
        run = fairground.simulate(jobs, CLUSTER, [], scheduler=Fifo(), seed=1, tenants=4, jobs_per_hour=rate)
    else:
        run = fairground.simulate(jobs, CLUSTER, ["fifo"], seed=1, tenants=4, jobs_per_hour=rate)
    (name, result), = run["policies"].items()
    # Rounds are 360 s by default and run from the first arrival (time 0) to the last finish.
    rounds = math.ceil(result["makespan_s"] / 360)
    print(f"{name}: {rounds} rounds of 360 s, average JCT {result['avg_jct_s']:.0f} s")


if __name__ == "__main__":
    main(sys.argv)
