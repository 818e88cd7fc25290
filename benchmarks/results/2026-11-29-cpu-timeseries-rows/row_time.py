"""The host time of one time-series row (astaroth.diagnostics.row) of a 32^3 MHD
float64 run on the CPU backend, the mean of 20 rows, appended to the file
named by the first argument with the row itself (to compare the values).

    python row_time.py OUT"""
import math, sys, time
import numpy as np
import astaroth as ac
from astaroth.diagnostics import row
sim = ac.Simulation(shape=(32,)*3, box=(2*math.pi,)*3, nu=5e-3, eta=0.03, cs=1.0, dtype="float64", physics="mhd", backend="cpu")
rng = np.random.default_rng(1)
for name in ("ax", "ay", "az", "ux"):
    sim[name] = 1e-2 * rng.standard_normal(sim.shape)
r0 = row(sim, 0.01)
t0 = time.perf_counter()
for _ in range(20): r = row(sim, 0.01)
print(f"{(time.perf_counter() - t0) / 20 * 1e3:.2f} ms a row", repr(sorted(r.items())), file=open(sys.argv[1], "a"))
