"""ncu-reduction.log's program: three CFL steps' reductions of an MHD run
at 256^3 in float32 (ncu skips the first and profiles the second)."""
import astaroth as ac
from astaroth.bench import smooth_start
sim = ac.Simulation(shape=(256,) * 3, dtype="float32", backend="cuda", physics="mhd", eta=5e-3)
smooth_start(sim)
for _ in range(3):
    sim.cfl_dt()
