"""Simulation.run takes its CFL steps in C (Grid.run_steps on the host, the
device loop on a GPU where it can): the same steps, bit for bit, as one
Simulation.step(cfl_dt()) at a time, in every configuration; forcing drawn
after each step, NaN checks, the stop file and the time bound of a batch
kept."""
import numpy as np
import pytest

import astaroth as ac
import astaroth.simulation as simulation

from helpers import smooth_random_fields

WALLS = {"z": {"lnrho": "a2", "ux": "s", "uy": "s", "uz": "a", "ss": "a2"}}
CONFIGURATIONS = {
    "hydro": dict(),
    "hydro_19p": dict(method="19p"),
    "forced": dict(forcing=dict(kmin=1, kmax=2, f0=0.05, seed=3)),
    "helical_mhd": dict(physics="mhd", eta=3e-3, b_ext=(0.0, 0.0, 0.1),
                        forcing=dict(kmin=1, kmax=2, f0=0.05, seed=4, relhel=1.0)),
    "entropy": dict(energy="entropy", chi=3e-3),
    "mhd_entropy_forced": dict(physics="mhd", energy="entropy", eta=2e-3, chi=2e-3,
                               forcing=dict(kmin=1, kmax=2, f0=0.05, seed=5)),
    "scalar": dict(passive_scalar=True, pscalar_diff=4e-3),
    "hyper3": dict(nu_hyper3=1e-5, diff_hyper3=1e-5),
    "shock": dict(nu_shock=1.0),
    "walls_gravity": dict(energy="entropy", chi=3e-3, gravity=(0.0, 0.0, -0.1), boundaries=WALLS),
}


def make(name, dtype, backend="cpu"):
    kw = dict(CONFIGURATIONS[name])
    forcing = kw.pop("forcing", None)
    sim = ac.Simulation(shape=(12, 10, 8), box=(2 * np.pi, 1.7 * np.pi, 1.3 * np.pi), nu=4e-3, dtype=dtype,
                        backend=backend, **kw)
    values = smooth_random_fields(sim.shape, sim.box, np.random.default_rng(2), amplitude=0.2)
    for i, field in enumerate(sim.field_names):
        sim[field] = values[i % 4] * (0.3 if field == "ss" else 1.0)
    if forcing:
        sim.forcing = ac.Forcing(**forcing)
    return sim


def one_at_a_time(sim, until):
    while sim.t < until:
        dt = sim.cfl_dt()
        sim.step(until - sim.t if sim.t + dt >= until else dt)


@pytest.mark.parametrize("backend", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_a_run_in_c_equals_steps_one_at_a_time_bit_for_bit(name, dtype, backend, monkeypatch):
    if backend not in ac.backends():
        pytest.skip(f"no {backend} backend here")
    batches = []
    for batch in ("_host_batch", "_device_batch"):  # the steps in C, on the host or the device
        taken_by = getattr(simulation._CflSteps, batch)
        monkeypatch.setattr(simulation._CflSteps, batch,
                            lambda self, taken_by=taken_by: batches.append(1) or taken_by(self))
    ran, stepped = make(name, dtype, backend), make(name, dtype, backend)
    until = 25 * ran.cfl_dt()
    taken = ran.run(until=until)
    one_at_a_time(stepped, until)
    assert batches and taken == stepped.steps == ran.steps > 10
    assert ran.t == until
    assert ran._grid.forcing_state == stepped._grid.forcing_state  # the generator where the steps leave it
    for field in ran.field_names:
        assert np.array_equal(ran[field], stepped[field]), field


# the configurations the device's CFL loop takes (cuda_backend.cu's gpu_run_cfl); the others step from the host
ON_THE_DEVICE = {"hydro", "forced", "helical_mhd", "entropy", "mhd_entropy_forced", "scalar", "hyper3"}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_the_device_loop_takes_every_configuration_but_shock_walls_gravity_and_19p(name):
    if "cuda" not in ac.backends():
        pytest.skip("no cuda backend here")
    sim = make(name, "float64", "cuda")
    result = sim._grid.run_cfl(0.0, 10 * sim.cfl_dt(), 0.4, 0.3, 20)
    assert (result is not None) == (name in ON_THE_DEVICE)
    if result is not None:
        t, steps, dt, nonfinite = result
        assert 0 < steps <= 20 and dt > 0 and not nonfinite


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["forced", "mhd_entropy_forced", "entropy"])
def test_device_steps_in_graphs_equal_steps_launched_one_by_one(name, monkeypatch):
    if "cuda" not in ac.backends():
        pytest.skip("no cuda backend here")
    runs = []
    for graphs in ("1", "0"):  # ASTAROTH_NO_GRAPHS: cuda_backend.cu's run_cfl launches each kernel
        monkeypatch.setenv("ASTAROTH_NO_GRAPHS", "0" if graphs == "1" else "1")
        sim = make(name, "float64", "cuda")
        sim.run(until=25 * sim.cfl_dt())
        runs.append(sim)
    assert runs[0].steps == runs[1].steps > 20
    assert runs[0]._grid.forcing_state == runs[1]._grid.forcing_state
    for field in runs[0].field_names:
        assert np.array_equal(runs[0][field], runs[1][field]), field


def test_a_batch_ends_at_the_time_series_rows_and_stops_on_nan(tmp_path):
    ran, stepped = make("forced", "float64"), make("forced", "float64")
    until = 30 * ran.cfl_dt()
    ran.run(until=until, timeseries=tmp_path / "a.csv", diagnostics_every=7)
    stepped.run(until=until, timeseries=tmp_path / "b.csv", diagnostics_every=7, dt=None, check_every=1)
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    blown = make("hydro", "float64")
    ux = blown["ux"]
    ux[3, 3, 3] = np.nan
    blown["ux"] = np.nan_to_num(ux)  # finite now; a NaN appears below through the view
    blown.view("ux")[3, 3, 3] = np.nan
    with pytest.raises(ac.NonFiniteError, match="'ux'"):
        blown.run(until=1.0)
    assert blown.steps == 0


def test_a_batch_in_c_returns_after_its_time_bound(monkeypatch):
    monkeypatch.setattr(simulation, "HOST_BATCH_SECONDS", 0.0)  # one step a batch
    sizes = []
    host_batch = simulation._CflSteps._host_batch

    def counted(self):
        before = self.taken
        dt = host_batch(self)
        sizes.append(self.taken - before)
        return dt

    monkeypatch.setattr(simulation._CflSteps, "_host_batch", counted)
    sim = make("hydro", "float64")
    sim.run(until=6 * sim.cfl_dt())
    assert sizes and set(sizes) == {1}
