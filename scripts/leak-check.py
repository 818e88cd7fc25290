"""Device memory before and after creating and deleting simulations, one
operation at a time (a diagnosis aid for the device-check script)."""
import gc

import numpy as np

import astaroth as ac
from astaroth.device import memory_info


def trial(label, action):
    gc.collect()
    before = memory_info()[0]
    s = ac.Simulation(shape=(32, 24, 16), backend="cuda", method="19p", dtype="float32")
    action(s)
    del s
    gc.collect()
    print(f"{label:<10} device memory not returned: {before - memory_info()[0]} bytes", flush=True)


trial("create", lambda s: None)
trial("write", lambda s: s.__setitem__("ux", np.ones(s.shape)))
trial("read", lambda s: s["ux"])
trial("step", lambda s: s.step(1e-3))
trial("max_speed", lambda s: s.cfl_dt())
trial("finite", lambda s: s.check_finite())
trial("rhs", lambda s: s.rhs())
trial("run", lambda s: s.run(until=0.05))
