"""First in, first out, in Python: the engine's `fifo` (Gavel's fifo_perf) as a scheduler the
engine runs. Each round, jobs in arrival order take the fastest GPU type with enough free GPUs
(ties to the type listed first); a job that fits nowhere waits.

    import fairground
    from fifo import Fifo
    fairground.simulate(100, "v100=4,p100=4,k80=4", scheduler=Fifo())
"""


class Fifo:
    name = "fifo-python"

    def place(self, view):
        free = list(view["free"])
        placements = []
        for job in view["active"]:  # already in arrival order
            usable = [j for j, rate in enumerate(job["rate"]) if rate > 0 and job["fits"][j]]
            for j in sorted(usable, key=lambda j: (-job["rate"][j], j)):
                if free[j] >= job["gpus"]:
                    free[j] -= job["gpus"]
                    placements.append({"job": job["job"], "type": view["types"][j], "gpus": job["gpus"]})
                    break
        return placements
