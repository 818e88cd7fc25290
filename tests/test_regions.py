"""The split-grid path in one process: substeps over an inner box and the
six slabs around it, after the ghost zones are filled (as the MPI stepper,
astaroth/parallel.py, runs them), equal whole-grid substeps bit for bit.
On the GPU the whole-grid substep reads the periodic images inside the
kernel and the regions read filled ghost zones, so this checks both paths
against each other without a second GPU."""
import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

G = 3  # ghost width, the stencil radius


def regions(n):
    """The inner box and the six slabs around it, G thick, tiling the grid."""
    (nx, ny, nz), hi = n, tuple(k - G for k in n)
    return [((G, G, G), hi),
            ((0, 0, 0), (nx, ny, G)), ((0, 0, nz - G), (nx, ny, nz)),
            ((0, 0, G), (nx, G, nz - G)), ((0, ny - G, G), (nx, ny, nz - G)),
            ((0, G, G), (G, ny - G, nz - G)), ((nx - G, G, G), (nx, ny - G, nz - G))]


def step_both(whole, split, shape, steps=2):
    """`steps` whole-grid steps of `whole`; the same of `split` substep by substep over the regions."""
    dt = whole.cfl_dt()
    for _ in range(steps):
        whole.step(dt)
        for s in range(3):
            for axis in range(3):
                split._grid.fill_ghost_axis(s, axis, 0)
            for lo, hi in regions(shape):
                split._grid.substep_region(s, dt, lo, hi)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(64, 32, 16), (37, 50, 23)])
def test_region_substeps_equal_whole_grid_substeps_bit_for_bit(backend, dtype, shape):
    box = (2 * np.pi, 3.0, 1.7)
    whole, split = (ac.Simulation(shape=shape, box=box, nu=0.03, cs=0.8, dtype=dtype, backend=backend)
                    for _ in range(2))
    for name, f in zip(ac.FIELDS, smooth_random_fields(shape, box, np.random.default_rng(2))):
        whole[name] = f
        split[name] = f
    step_both(whole, split, shape)
    changed = False
    for name in ac.FIELDS:
        a, b = whole[name], split[name]
        assert np.all(np.isfinite(a)), name
        assert np.array_equal(a, b), (name, float(np.max(np.abs(a - b))))
        changed |= not np.array_equal(a, np.asarray(smooth_random_fields(shape, box, np.random.default_rng(2))[
            ac.FIELDS.index(name)], dtype=dtype))
    assert changed  # the steps did something


# The CPU's row loop of every configuration but plain hydro (csrc/cpu/rows_impl.h): whole-grid steps with nz >= 17
# fuse their three substeps in one z sweep (csrc/cpu/kernels_impl.h), the regions run substep by substep.
ROW_LOOP = {
    "mhd": dict(physics="mhd", eta=0.03, b_ext=(0.1, 0.0, 0.05)),
    "hyper3": dict(nu_hyper3=2e-5, diff_hyper3=1e-5),
    "entropy_scalar": dict(energy="entropy", chi=0.01, passive_scalar=True, pscalar_diff=0.02),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("config", ROW_LOOP)
def test_fused_steps_of_the_row_loop_equal_region_substeps_bit_for_bit(config, dtype):
    shape, box = (37, 20, 23), (2 * np.pi, 3.0, 1.7)
    whole, split = (ac.Simulation(shape=shape, box=box, nu=0.03, cs=0.8, dtype=dtype, backend="cpu",
                                  **ROW_LOOP[config]) for _ in range(2))
    names = whole.field_names
    fields = [f for seed in (2, 3, 4) for f in smooth_random_fields(shape, box, np.random.default_rng(seed), amplitude=0.05)]
    for name, f in zip(names, fields):
        whole[name] = f
        split[name] = f
    step_both(whole, split, shape)
    for name, f in zip(names, fields):
        assert np.all(np.isfinite(whole[name])), name
        assert np.array_equal(whole[name], split[name]), (name, float(np.max(np.abs(whole[name] - split[name]))))
        assert not np.array_equal(whole[name], np.asarray(f, dtype=dtype)), name
