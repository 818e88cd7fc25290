"""CFL steps found on the device: on the CUDA backend
sim.run takes up to DEVICE_BATCH steps (or those up to the next time-series
row) without waiting for the host, finding each dt with cfl_dt's arithmetic
on the GPU from a reduction that the last substep of each step makes.  A run must equal the host's step-by-step loop bit for bit: the
fields, t, the step count, the time series and how a blow-up is reported."""
import math

import numpy as np
import pytest

import astaroth as ac
from helpers import smooth_random_fields

GPU = pytest.mark.gpu


def flow(shape, dtype, backend="cuda", physics="hydro", nu=0.02, cs=1.0):
    box = (2 * math.pi, 2 * math.pi * 1.1, 2 * math.pi * 0.9)
    extra = dict(physics="mhd", eta=0.015, b_ext=(0.0, 0.1, 0.2)) if physics == "mhd" else {}
    sim = ac.Simulation(shape=shape, box=box, nu=nu, cs=cs, dtype=dtype, backend=backend, **extra)
    for name, f in zip(ac.FIELDS, smooth_random_fields(shape, box, np.random.default_rng(3), amplitude=0.2)):
        sim[name] = f
    if physics == "mhd":
        ac.init.beltrami_field(sim, k=1, amplitude=0.1, axis="x")
    return sim


def host_and_device(make, **run):
    """The same run through the host's loop and through the device's."""
    host, device = make(), make()
    host._device_cfl = False
    got = [sim.run(**run) for sim in (host, device)]
    return host, device, got


def assert_same(a, b):
    assert (a.t, a.steps) == (b.t, b.steps)
    for name in a.field_names:
        assert np.array_equal(a[name], b[name]), name


def test_the_cpu_backend_finds_dt_on_the_host():
    sim = flow((8, 6, 4), "float64", backend="cpu")
    assert sim._grid.run_cfl(0.0, 1.0, 0.4, 0.3, 5) is None
    assert sim.run(until=0.05) > 0  # and run() steps from the host


@GPU
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(32, 32, 32), (37, 50, 23), (24, 20, 1), (1, 1, 40)])
def test_device_steps_equal_host_steps_bit_for_bit(dtype, shape, monkeypatch):
    monkeypatch.setattr(ac.simulation, "DEVICE_BATCH", 3)  # several batches, the last one short
    host, device, taken = host_and_device(lambda: flow(shape, dtype), until=0.37)
    assert taken[0] == taken[1] > 3
    assert device.t == 0.37
    assert_same(host, device)


@GPU
def test_a_runs_last_steps_are_sized_from_all_of_its_batches(monkeypatch):
    """The step the next run sizes its first batch with (Simulation._start_dt) is the mean over every batch
    of the run before, the last step counted as half, not that of its last batch alone (often a step or two)."""
    monkeypatch.setattr(ac.simulation, "DEVICE_BATCH", 3)
    sim = flow((32, 32, 32), "float32")
    sim.run(until=0.05)
    began, steps = sim.t, sim.steps
    sim.run(until=0.37)
    assert sim.steps - steps > 6
    assert sim._recent_step[2] == (sim.t - began) / (sim.steps - steps - 0.5)


@GPU
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("plain_order", [False, True])
@pytest.mark.parametrize("shape", [(24, 20, 16), (23, 20, 16)])
def test_mhd_device_steps_equal_host_steps(dtype, plain_order, shape, monkeypatch):
    # (24, 20, 16): the device loop takes the deferred order, dt from the first substep (schedules.cuh), unless
    # ASTAROTH_PLAIN_ORDER=1; n_x = 23 rows do not split into 16-byte pieces, so the plain order always
    if plain_order:
        monkeypatch.setenv("ASTAROTH_PLAIN_ORDER", "1")
    host, device, _ = host_and_device(lambda: flow(shape, dtype, physics="mhd"), until=0.3)
    assert_same(host, device)


@GPU
@pytest.mark.parametrize("plain_order", [False, True])
def test_an_mhd_blow_up_is_reported_as_the_host_reports_it(plain_order, monkeypatch):
    cupy = pytest.importorskip("cupy")
    if plain_order:
        monkeypatch.setenv("ASTAROTH_PLAIN_ORDER", "1")
    messages = []
    for device in (False, True):
        sim = flow((16, 16, 16), "float32", physics="mhd")
        sim.run(until=0.2)
        cupy.asarray(sim.view("ay"))[3, 4, 5] = np.inf
        sim._device_cfl = device
        with pytest.raises(ac.NonFiniteError) as err:
            sim.run(until=1.0)
        messages.append((str(err.value), sim.steps, sim.t, sim["lnrho"].tobytes()))
    assert messages[0] == messages[1]


@GPU
def test_the_device_loop_is_used_and_lands_on_until():
    sim = flow((16, 16, 16), "float64")
    t, steps, dt, nonfinite = sim._grid.run_cfl(0.0, 0.05, 0.4, 0.3, 1000)
    assert t == 0.05 and 0 < steps < 1000 and 0 < dt and not nonfinite
    assert sim.t == 0.0  # run_cfl is the binding's; Simulation keeps its own clock


@GPU
def test_a_run_queues_about_the_steps_it_takes():
    """A run's first device batch is sized by its CFL step now, not by the last step of the run before (shortened
    to land on that run's until): each step queued past `until` costs its launches, a reduction's in full."""
    sim = flow((16, 16, 16), "float64", physics="mhd")  # a reduction launch every step
    dt = sim.cfl_dt()
    sim.run(until=2.1 * dt)  # two steps and a tenth of one
    grid, queued = sim._grid, []

    class Recording:
        def __getattr__(self, name):
            return getattr(grid, name)

        def run_cfl(self, *args):
            queued.append(args[-1])
            return grid.run_cfl(*args)

    sim._grid = Recording()
    taken = sim.run(until=sim.t + 5 * sim.cfl_dt())
    assert 5 <= taken <= 6 and queued and sum(queued) <= taken + 3, queued


@GPU
def test_time_series_rows_are_the_same(tmp_path):
    rows = []
    for i, make in enumerate((lambda: flow((32, 24, 16), "float64"),) * 2):
        sim = make()
        sim._device_cfl = i == 1
        sim.run(until=1.0, diagnostics_every=3, timeseries=tmp_path / f"ts{i}.csv")
        rows.append((tmp_path / f"ts{i}.csv").read_text())
    assert rows[0] == rows[1] and rows[0].count("\n") > 5


@GPU
def test_a_blow_up_is_reported_as_the_host_reports_it():
    cupy = pytest.importorskip("cupy")
    messages = []
    for device in (False, True):
        sim = flow((16, 16, 16), "float64", nu=0.0)
        sim.run(until=0.2)
        cupy.asarray(sim.view("ux"))[3, 4, 5] = np.nan  # (sim["ux"] = ... refuses NaN)
        sim._device_cfl = device
        with pytest.raises(ac.NonFiniteError) as err:
            sim.run(until=1.0)
        messages.append((str(err.value), sim.steps, sim.t))
    assert messages[0] == messages[1]


@GPU
def test_forcing_runs_on_the_device_and_the_19_point_method_on_the_host():
    def forced():
        sim = flow((16, 16, 16), "float64")
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.02, seed=4)
        return sim

    assert forced()._grid.run_cfl(0.0, 1.0, 0.4, 0.3, 5) is not None
    host, device, _ = host_and_device(forced, until=0.2)
    assert_same(host, device)
    assert host._grid.forcing_state == device._grid.forcing_state
    sim = ac.Simulation(shape=(16, 16, 16), dtype="float64", backend="cuda", method="19p", nu=0.02)
    assert sim._grid.run_cfl(0.0, 1.0, 0.4, 0.3, 5) is None


@GPU
def test_unforced_ensemble_members_equal_their_solo_runs():
    members = [flow((24, 24, 24), "float32", nu=0.01 + 0.005 * i) for i in range(4)]
    alone = [flow((24, 24, 24), "float32", nu=0.01 + 0.005 * i) for i in range(4)]
    ac.Ensemble(members).run(until=0.25)
    for sim in alone:
        sim._device_cfl = False
        sim.run(until=0.25)
    for a, b in zip(alone, members):
        assert_same(a, b)


def test_a_device_run_starts_from_the_devices_last_full_step():
    """Simulation._start_dt: the step the device last took at the same Courant numbers (a landing batch's mean
    step, its shortened last step counted as half), else cfl_dt: after fields are set, at other Courant
    numbers, or after one shortened step alone."""
    sim = flow((8, 8, 8), "float64", backend="cpu")
    fresh = sim.cfl_dt(0.4, 0.3)
    sim._fields_as_given = False  # as after device steps
    assert sim._start_dt(0.4, 0.3) == fresh  # no device step known
    sim._remember_steps(0.4, 0.3, 1.0, 10, 0.1, landed=False)
    assert sim._start_dt(0.4, 0.3) == 0.1
    assert sim._start_dt(0.2, 0.3) == sim.cfl_dt(0.2, 0.3)
    sim._remember_steps(0.4, 0.3, 0.95, 10, 0.05, landed=True)
    assert sim._start_dt(0.4, 0.3) == pytest.approx(0.1, rel=1e-15)  # 0.95 / 9.5
    sim._remember_steps(0.4, 0.3, 0.01, 1, 0.01, landed=True)
    assert sim._start_dt(0.4, 0.3) == pytest.approx(0.1, rel=1e-15)
    sim["ux"] = sim["ux"]
    assert sim._start_dt(0.4, 0.3) == fresh
    sim._fields_as_given = False
    sim._remember_steps(0.4, 0.3, 1.0, 10, 0.1, landed=False)
    sim.nu = 0.5  # a parameter changed: the grid is made again
    assert sim._start_dt(0.4, 0.3) == sim.cfl_dt(0.4, 0.3) != 0.1
