"""Ensemble members in shared launches against their solo runs, field by
field: python3 members_against_solo.py [CONFIG:DTYPE ...] (configurations of
tests/test_ensemble.py's SHARED_CONFIGURATIONS).  For each: four members run
to a time shorter than one CFL step (so every member's one step has the same
length whatever its reduction found), then on to t = 0.4; per member the
steps, and the largest difference from its solo run of each field."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ.get("REPO", "."), "tests"))
import astaroth as ac  # noqa: E402
from test_ensemble import configured, forced  # noqa: E402


def compare(make, label, until):
    ens = ac.Ensemble(make(i) for i in range(4))
    taken = ens.run(until=until)
    for i, sim in enumerate(ens):
        alone = make(i)
        steps = alone.run(until=until)
        diffs = {name: float(np.max(np.abs(sim[name] - alone[name]))) for name in sim.field_names}
        worst = max(diffs.values())
        print(f"{label} until={until} member {i}: steps {taken[i]} / solo {steps}, t equal {sim.t == alone.t}, "
              f"max diff {worst:.3e}" + ("" if worst == 0 else " " + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items())))


for spec in sys.argv[1:] or ["mhd-entropy:float64", "mhd-entropy:float32", "mhd:float64"]:
    config, dtype = spec.split(":")
    for kind, make in (("unforced", lambda i: configured(i, config, dtype)),
                       ("forced", lambda i: forced(i, config, dtype))):
        for until in (1e-3, 0.4):
            compare(make, f"{config} {dtype} {kind}", until)
    sys.stdout.flush()
