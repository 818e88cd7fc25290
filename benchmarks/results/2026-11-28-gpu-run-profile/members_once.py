"""An Ensemble of 64 MHD members at 32^3 (float32, unforced; the sweep
rows' members) stepping in shared launches: for Nsight Compute to profile
its kernels (--kernel-name regex:members --launch-skip K --launch-count N)."""
from astaroth.bench import sweep_members
from astaroth.ensemble import Ensemble

sims = sweep_members("cuda", "55p", "float32", 32, 64, "mhd", False)
ens = Ensemble(sims)
dt = min(sim.cfl_dt() for sim in sims)
ens.run(until=max(sim.t for sim in sims) + 12 * dt)
