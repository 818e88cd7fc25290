"""`astaroth bench`: million grid-point updates per second per full RK3 step.

A program, not a test: it times whole RK3 steps (three substeps, all four
fields) on each backend, method and precision asked for, and the NumPy
statement of the same equations that the tests check against
(astaroth.numpy_reference) at the smallest size, and prints the speed-up
over it.  DESIGN.md section 4.
"""
import math
import platform
import time

import numpy as np

from .simulation import Simulation

BYTES_PER_POINT = {"float32": 160, "float64": 320}  # minimum traffic per full step (DESIGN 4)


def smooth_start(sim):
    """A smooth, stable flow so that every timed step does real arithmetic."""
    x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
    sim["lnrho"] = 0.01 * np.sin(x + 2 * y) * np.cos(z)
    sim["ux"] = 0.1 * np.sin(y) * np.cos(2 * z)
    sim["uy"] = 0.1 * np.sin(z + x)
    sim["uz"] = 0.1 * np.cos(x) * np.sin(3 * y)


def _time_steps(step, target_seconds, synchronize=lambda: None):
    """Seconds per call of step(), over enough calls to last target_seconds."""
    step()  # warm-up
    synchronize()
    t0 = time.perf_counter()
    step()
    synchronize()
    once = time.perf_counter() - t0
    count = max(2, int(math.ceil(target_seconds / max(once, 1e-9))))
    t0 = time.perf_counter()
    for _ in range(count):
        step()
    synchronize()
    return (time.perf_counter() - t0) / count


def time_backend(backend, method, dtype, n, target_seconds):
    """M updates/s of one configuration; the steps run inside the backend."""
    sim = Simulation(shape=(n, n, n), nu=5e-3, cs=1.0, dtype=dtype, backend=backend, method=method)
    smooth_start(sim)
    dt = sim.cfl_dt()
    seconds = _time_steps(lambda: sim._grid.step(dt, 1), target_seconds)
    sim.check_finite()
    return n ** 3 / seconds / 1e6


def time_numpy_reference(dtype, n, target_seconds):
    """M updates/s of the same equations in NumPy (astaroth.numpy_reference)."""
    from .numpy_reference import rk3_step

    sim = Simulation(shape=(n, n, n), nu=5e-3, cs=1.0, dtype=dtype, backend="cpu")
    smooth_start(sim)
    dt = sim.cfl_dt()
    state = [sim["lnrho"], [sim["ux"], sim["uy"], sim["uz"]]]

    def step():
        state[0], state[1] = rk3_step(state[0], state[1], sim.spacing, sim.nu, sim.cs, dt)

    seconds = _time_steps(step, target_seconds)
    return n ** 3 / seconds / 1e6


def run_bench(backend="cpu", sizes=(64, 128), dtypes=("float32", "float64"), methods=("55p", "19p"),
              baseline_size=64, target_seconds=1.0, out=print):
    """Print the benchmark table; returns a list of result rows (dicts)."""
    from . import _core

    out(f"# astaroth bench: backend={backend}, host={platform.node()}, cpu={platform.processor() or platform.machine()}"
        f", openmp_threads={_core.openmp_threads()}, numpy={np.__version__}")
    out(f"# M/s = million grid points updated per second per full RK3 step (3 substeps, 4 fields)")
    rows = []
    baselines = {}
    for dtype in dtypes:
        baselines[dtype] = time_numpy_reference(dtype, baseline_size, target_seconds)
        rows.append(dict(impl="numpy reference", method="55p", dtype=dtype, n=baseline_size, mps=baselines[dtype]))
    out(f"# speed-up: over the NumPy reference at {baseline_size}^3 in the same precision")
    out(f"{'implementation':<16}{'method':>7}{'dtype':>9}{'size':>8}{'M/s':>11}{'speed-up':>10}")
    for r in rows:
        out(f"{r['impl']:<16}{r['method']:>7}{r['dtype']:>9}{str(r['n']) + '^3':>8}{r['mps']:>11.2f}{1.0:>10.1f}")
    for n in sizes:
        for dtype in dtypes:
            for method in methods:
                mps = time_backend(backend, method, dtype, n, target_seconds)
                row = dict(impl=f"astaroth {backend}", method=method, dtype=dtype, n=n, mps=mps,
                           speedup=mps / baselines[dtype])
                rows.append(row)
                out(f"{row['impl']:<16}{method:>7}{dtype:>9}{str(n) + '^3':>8}{mps:>11.2f}{row['speedup']:>10.1f}")
    return rows
