"""astaroth's CPU backend on the problem of the Pencil Code run directories
beside this file (pencil/<physics>64/*.in): 64^3 float64, one thread
(OMP_NUM_THREADS=1), dt = 0.02 fixed, the fields of their start.in.
usage: ours.py PHYSICS [STEPS]  (hydro, mhd, entropy, mhdentropy)
prints microseconds per point and RK3 step of Grid.step over STEPS steps
(after 2 warm-up steps); with OURS_CPU_TIME=1 the process's CPU time
instead of the wall clock (for A/B runs of two builds on a loaded machine)."""
import os
import sys
import time

import numpy as np

import astaroth as ac

phys = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
kw = dict(physics="mhd", eta=0.03, b_ext=(0.0, 0.0, 0.1)) if phys.startswith("mhd") else {}
if phys.endswith("entropy"):  # eos_idealgas, iheatcond='chi-const'
    kw.update(energy="entropy", gamma=5 / 3, cp=1.0, rho0=1.0, chi=0.02)
sim = ac.Simulation(shape=(64,) * 3, box=(2 * np.pi,) * 3, nu=0.05, cs=1.0, dtype="float64", backend="cpu", **kw)
x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
sim["ux"], sim["uy"], sim["uz"] = 0.1 * np.sin(y), 0.05 * np.sin(2 * z), 0.02 * np.sin(x)
sim["lnrho"] = 0.01 * np.sin(x)
if "ax" in sim.field_names:
    sim["ax"], sim["ay"], sim["az"] = 0.05 * np.cos(y), 0.03 * np.cos(z), 0.02 * np.cos(x)
if "ss" in sim.field_names:  # initss='cosx_cosy_cosz', ampl_ss=0.01
    sim["ss"] = 0.01 * np.cos(x) * np.cos(y) * np.cos(z)
sim._grid.step(0.02, 2)
clock = time.process_time if os.environ.get("OURS_CPU_TIME") == "1" else time.perf_counter
t0 = clock()
sim._grid.step(0.02, steps)
t = clock() - t0
print(f"{1e6 * t / steps / 64 ** 3:.4f}")
