"""The GPU's CFL reduction (csrc/cuda/mhd_substep.cuh) finds the maximum signal
speed that the CPU's finds (csrc/cpu/signal_impl.h), the speed of each point
from the same terms (csrc/timestep.h), where the speeds of many points lie
close to the largest, whichever part of the speed leads: the flow |u|, the
Alfven speed (B = curl A + b_ext over rho: the curl's derivatives of A and
exp(-lnrho)) or the ideal gas's sound speed (its exp of lnrho and ss), and
with the shearing box's flow added at each x."""
import math

import numpy as np
import pytest

import astaroth as ac

GPU = pytest.mark.gpu

CASES = {
    "mhd-flow": (dict(physics="mhd"), "flow"),
    "mhd-alfven": (dict(physics="mhd"), "alfven"),
    "mhd-entropy-sound": (dict(physics="mhd", energy="entropy"), "sound"),
    "mhd-entropy-alfven": (dict(physics="mhd", energy="entropy"), "alfven"),
    "mhd-shear": (dict(physics="mhd", shear=-1.5, omega=(0.0, 0.0, 1.0)), "flow"),
}
# |dt_gpu / dt_cpu - 1|: the two reduce the same speeds, apart from exp's
# last bit in double, and in single precision B's derivatives summed in
# another order.  In float64 the largest speed and the next differ by about
# 1e-9 of it (1e-4 spread over 70,000 points): a point missed shows.
TOLERANCE = {"float64": 1e-13, "float32": 2e-7}
SPREAD = {"float64": 1e-4, "float32": 1e-2}  # the leading part's relative spread over the grid


def close_speeds(modules, lead, dtype, shape=(48, 40, 36), seed=5):
    """The same fields on the CPU and on the GPU: every speed close to the largest, the leading part of the
    speed spread by SPREAD[dtype] at random over the points, the others by a thousandth of that."""
    rng = np.random.default_rng(seed)
    spread = SPREAD[dtype]
    noise = lambda scale: scale * rng.random(shape)
    sims = []
    for backend in ("cpu", "cuda"):
        sims.append(ac.Simulation(shape=shape, box=(2 * math.pi, 2.0, 1.5), nu=1e-2, eta=1e-2, cs=1.0,
                                  b_ext=(0.0, 0.0, 3.0 if lead == "alfven" else 0.3), dtype=dtype, backend=backend,
                                  **modules))
    small = spread * 1e-3
    values = {"ux": (2.0 if lead == "flow" else 0.1) * (1 + noise(spread if lead == "flow" else small)),
              "uy": noise(small), "uz": noise(small),
              "lnrho": noise(spread if lead == "alfven" else small),
              # A's noise gives B = curl A + b_ext a spread of about its size over dx
              "ax": noise(small * 0.05), "ay": noise(small * 0.05), "az": noise(small * 0.05)}
    if "ss" in sims[0].field_names:
        values["ss"] = noise(spread if lead == "sound" else small) + (1.0 if lead == "sound" else 0.0)
    for sim in sims:
        for name, f in values.items():
            sim[name] = f.astype(dtype)
    return sims


@GPU
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_gpus_cfl_reduction_finds_the_cpus_maximum_among_close_speeds(case, dtype):
    cpu, gpu = close_speeds(*CASES[case], dtype)
    assert cpu.field_names == gpu.field_names
    dt_cpu, dt_gpu = cpu.cfl_dt(cdtv=1e3), gpu.cfl_dt(cdtv=1e3)  # the advective limit alone
    assert abs(dt_gpu / dt_cpu - 1) <= TOLERANCE[dtype], (dt_cpu, dt_gpu)


@GPU
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("nx", [40, 41])
def test_the_gpus_cfl_reduction_finds_one_point_above_speeds_that_rise_fall_or_stay_along_z(nx, dtype):
    """The reduction walks z a column at a time, in float32 two x points a thread where the rows hold whole
    pairs (nx even), one where not: a single point above the rest, at a corner or inside, either point of a
    pair, is found whether the speeds below it rise, fall or stay along z."""
    shape = (nx, 24, 64)
    z = np.arange(shape[2]) / shape[2]
    for profile in (1.0 + 1e-6 * z, 1.0 - 1e-6 * z, np.ones(shape[2])):
        for spike in ((0, 0, 0), (17, 9, 33), (18, 9, 33), (nx - 1, 23, 63)):
            sims = [ac.Simulation(shape=shape, physics="mhd", eta=1e-2, nu=1e-2, dtype=dtype, backend=b)
                    for b in ("cpu", "cuda")]
            ux = np.broadcast_to(profile, shape).copy()
            ux[spike] += 3e-6
            for sim in sims:
                sim["ux"] = ux.astype(dtype)
            dt_cpu, dt_gpu = (sim.cfl_dt(cdtv=1e3) for sim in sims)
            limit = 1e-14 if dtype == "float64" else TOLERANCE[dtype]  # a missed spike: 3e-6
            assert abs(dt_gpu / dt_cpu - 1) <= limit, (profile[:2], spike, dt_cpu, dt_gpu)
