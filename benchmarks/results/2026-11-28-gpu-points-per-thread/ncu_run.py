"""A short 256^3 float32 hydro run for ncu (device.sh): four steps of the
host-driven instance, twelve launches of the streaming substep; device.sh
profiles the seventh.  usage: python3 ncu_run.py TREE"""
import sys

sys.path.insert(0, sys.argv[1])
from astaroth import Simulation  # noqa: E402
from astaroth.bench import smooth_start  # noqa: E402

sim = Simulation(shape=(256, 256, 256), nu=5e-3, cs=1.0, dtype="float32", backend="cuda", method="55p")
smooth_start(sim)
dt = sim.cfl_dt()
for _ in range(4):
    sim._grid.step(dt, 1)  # as bench.py's backend_stepper: dt from the host
sim.check_finite()
print("ran 4 steps at dt", dt)
