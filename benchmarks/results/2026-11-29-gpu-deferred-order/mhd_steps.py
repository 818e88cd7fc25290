"""Steps of sim.run of one MHD grid, for a profiler: a first run of three
CFL steps' length (the device loop set up), then STEPS more; `forced`:
with the sweep bench's forcing.

    python mhd_steps.py N DTYPE STEPS [PHYSICS] [forced]"""
import sys

from astaroth.bench import sweep_members

n, dtype, steps = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
physics = sys.argv[4] if len(sys.argv) > 4 else "mhd"
forced = len(sys.argv) > 5 and sys.argv[5] == "forced"
sim = sweep_members("cuda", "55p", dtype, n, 1, physics, forced)[0]
sim.run(until=sim.t + 3 * sim.cfl_dt())
first = sim.steps
sim.run(until=sim.t + steps * sim.cfl_dt())
print(f"{first} steps, then {sim.steps - first}")
