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
    "entropy_helical": dict(energy="entropy", chi=3e-3, forcing=dict(kmin=1, kmax=2, f0=0.05, seed=7, relhel=0.5)),
    "gravity_forced": dict(gravity=(0.0, 0.0, -0.1), forcing=dict(kmin=1, kmax=2, f0=0.05, seed=8)),
    "mhd_entropy_forced": dict(physics="mhd", energy="entropy", eta=2e-3, chi=2e-3,
                               forcing=dict(kmin=1, kmax=2, f0=0.05, seed=5)),
    "scalar": dict(passive_scalar=True, pscalar_diff=4e-3),
    "scalars_mhd_forced": dict(physics="mhd", eta=3e-3, passive_scalar=2, pscalar_diff=4e-3, pscalar_diff2=8e-3,
                               forcing=dict(kmin=1, kmax=2, f0=0.05, seed=6)),
    "hyper3": dict(nu_hyper3=1e-5, diff_hyper3=1e-5),
    "shock": dict(nu_shock=1.0),
    "walls_gravity": dict(energy="entropy", chi=3e-3, gravity=(0.0, 0.0, -0.1), boundaries=WALLS),
    "mhd_walls_gravity": dict(physics="mhd", eta=3e-3, gravity=(0.0, 0.0, -0.1), b_ext=(0.0, 0.0, 0.1),
                              boundaries={"z": {"lnrho": "a2", "ux": "s", "uy": "s", "uz": "a", "ax": "a", "ay": "a",
                                                "az": "s"}}),
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
ON_THE_DEVICE = {"hydro", "forced", "helical_mhd", "entropy", "entropy_helical", "gravity_forced",
                 "mhd_entropy_forced", "scalar", "scalars_mhd_forced", "hyper3", "walls_gravity", "mhd_walls_gravity"}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(CONFIGURATIONS))
def test_the_device_loop_takes_every_configuration_but_shock_and_19p(name):
    if "cuda" not in ac.backends():
        pytest.skip("no cuda backend here")
    sim = make(name, "float64", "cuda")
    result = sim._grid.run_cfl(0.0, 10 * sim.cfl_dt(), 0.4, 0.3, 20)
    assert (result is not None) == (name in ON_THE_DEVICE)
    if result is not None:
        t, steps, dt, nonfinite = result
        assert 0 < steps <= 20 and dt > 0 and not nonfinite


@pytest.mark.gpu
@pytest.mark.parametrize("graphs", [True, False])
@pytest.mark.parametrize("name", ["forced", "helical_mhd", "entropy", "mhd_entropy_forced", "scalar",
                                  "scalars_mhd_forced", "walls_gravity", "mhd_walls_gravity"])
def test_ensemble_members_in_one_graph_equal_their_solo_runs(name, graphs, monkeypatch):
    """Members of any configuration the device loop takes step together from
    one host thread (cuda_backend.cu's run_members_graphed: one CUDA graph of
    every member's steps, or ASTAROTH_NO_GRAPHS=1 their launches one by one),
    each as its own sim.run would, bit for bit, forcing generator included."""
    if "cuda" not in ac.backends():
        pytest.skip("no cuda backend here")
    monkeypatch.setenv("ASTAROTH_NO_GRAPHS", "0" if graphs else "1")

    def members():
        sims = [make(name, "float64", "cuda") for _ in range(3)]
        for i, sim in enumerate(sims):
            sim.nu = 4e-3 * (1 + 0.2 * i)
            if sim.forcing is not None:
                sim.forcing = ac.Forcing(**{**CONFIGURATIONS[name]["forcing"], "seed": 10 + i})
        return sims

    together, alone = members(), members()
    until = 25 * min(sim.cfl_dt() for sim in together)
    calls = []
    members_run = ac.ensemble._core.run_cfl_members
    monkeypatch.setattr(ac.ensemble._core, "run_cfl_members",
                        lambda *a: calls.append(members_run(*a)) or calls[-1])
    ac.Ensemble(together).run(until=until)
    assert calls and all(c is not None for c in calls)  # they went together
    for sim in alone:
        sim.run(until=until)
    for a, b in zip(alone, together):
        assert (a.t, a.steps) == (b.t, b.steps) and a.steps > 10
        assert a._grid.forcing_state == b._grid.forcing_state
        for field in a.field_names:
            assert np.array_equal(a[field], b[field]), field
