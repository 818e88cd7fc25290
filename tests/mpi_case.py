"""The forced run that tests/test_mpi.py compares across rank counts."""
import astaroth as ac

FIELDS = ac.FIELDS
SHAPE = (16, 12, 20)  # 2 ranks split z, 4 also x, 8 also y (subdomains too thin for an inner part)
T_HALF, T_END = 0.4, 0.8
YZ_SHAPE = (12, 16, 20)  # 4 ranks split y and z


def make(comm=None, procs=None):
    sim = ac.Simulation(shape=SHAPE, box=(6.0, 4.5, 7.5), nu=2e-2, cs=1.0, dtype="float64", backend="cpu",
                        comm=comm, procs=procs)
    ac.init.random_velocity(sim, urms=0.1, seed=5)
    sim["lnrho"] = 0.01 * sim["ux"]  # a density field that is not uniform
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1, seed=11)
    return sim


def make_fluid(comm=None, backend="cpu", energy="isothermal", forced=False):
    """A hydro run, with energy="entropy" a random ss, forced or decaying: split over GPUs, the last substep of
    each step adds the forcing and leaves the next step's signal speed (the backend's set_step_reduction)."""
    import numpy as np

    entropy = dict(energy="entropy", chi=2e-2, gamma=1.4, cp=1.3, rho0=1.1) if energy == "entropy" else {}
    sim = ac.Simulation(shape=SHAPE, box=(6.0, 4.5, 7.5), nu=2e-2, cs=3.0, dtype="float64", backend=backend,
                        comm=comm, **entropy)
    ac.init.random_velocity(sim, urms=0.3, seed=5)
    sim["lnrho"] = 0.01 * sim["ux"]
    if entropy:
        sim["ss"] = 0.02 * np.random.default_rng(6).standard_normal(SHAPE)
    if forced:
        sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1, seed=11, relhel=0.5)
    return sim


def _forced_mhd(comm, random=("ax", "ay", "az"), relhel=1.0, backend="cpu", shape=SHAPE, **parameters):
    """A forced MHD run with an imposed field and the fields `random` random (every rank draws the same), with
    further `parameters`: the run each make_* below varies."""
    import numpy as np

    sim = ac.Simulation(shape=shape, box=(6.0, 4.5, 7.5), nu=2e-2, cs=1.0, dtype="float64", backend=backend,
                        comm=comm, physics="mhd", eta=3e-2, b_ext=(0.1, 0.0, 0.2), **parameters)
    ac.init.random_velocity(sim, urms=0.1, seed=5)
    rng = np.random.default_rng(6)
    for name in random:
        sim[name] = 0.02 * rng.standard_normal(shape)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1, seed=11, relhel=relhel)
    return sim


def make_mhd(comm=None):
    """A helically forced MHD run with an imposed field and a random A."""
    return _forced_mhd(comm, mu0=1.5)


def make_entropy(comm=None, backend="cpu", exchange="auto", shape=SHAPE):
    """make_mhd's run with energy="entropy": conduction, a random ss (the energy equation split over ranks), in a
    tilted rotating frame (the Coriolis force).  `exchange`: how GPU ranks exchange their ghost zones."""
    return _forced_mhd(comm, ("ax", "ay", "az", "ss"), backend=backend, exchange=exchange, shape=shape, mu0=1.5,
                       energy="entropy", chi=2e-2, gamma=1.4, cp=1.3, rho0=1.1, omega=(-0.3, 0.0, 0.6))


def make_terms(comm=None):
    """make_mhd's run with a passive scalar, hyperdiffusion of u and lnrho and a rotating frame (every
    term of the row loop that reads a neighbour or a point, split over ranks)."""
    return _forced_mhd(comm, ("ax", "ay", "az", "cc"), relhel=-1.0, passive_scalar=True, pscalar_diff=1e-2,
                       nu_hyper3=2e-5, diff_hyper3=1e-5, omega=(0.2, -0.1, 0.5))


def make_scalars(comm=None):
    """make_mhd's run with two passive scalars of their own diffusivities (the scalars split over ranks)."""
    return _forced_mhd(comm, ("ax", "ay", "az", "cc", "cc2"), relhel=0.0, passive_scalar=2, pscalar_diff=1e-2,
                       pscalar_diff2=3e-2)


def make_shock(comm=None, backend="cpu", exchange="auto"):
    """A forced run with shock viscosity: its profile's 3x3x3 maximum and smoothing span subdomains."""
    sim = ac.Simulation(shape=SHAPE, box=(6.0, 4.5, 7.5), nu=5e-3, cs=1.0, dtype="float64", backend=backend,
                        comm=comm, nu_shock=1.0, exchange=exchange)
    ac.init.random_velocity(sim, urms=0.3, seed=5)
    sim["lnrho"] = 0.05 * sim["ux"]
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.1, seed=11)
    return sim


SHEAR_SHAPES = {"z": (8, 8, 24), "x": (24, 8, 6), "y": (12, 16, 6)}  # the axis 2 ranks split (split_dims)
T_SHEAR = 0.3


def make_shear_shock(comm=None, split="z", backend="cpu", exchange="auto", scalar=True):
    """make_shear's box with shock viscosity, split first along `split`: along z each rank shifts its own
    x faces' images of the profile's passes as of the fields; along x or y the ranks on the x faces share
    each pass's planes (astaroth.parallel.ShearingFaces).  `scalar`: make_shear's passive scalar (the GPU
    builds the shearing box with shock viscosity without it, csrc/cuda/instances.def)."""
    sim = make_shear(comm, split, backend, scalar, exchange)
    sim.nu_shock = 0.7
    return sim


def make_shear(comm=None, split="y", backend="cpu", scalar=True, exchange="auto"):
    """A Keplerian shearing box (qshear = 1.5) with MHD, the entropy module and, if `scalar`, a passive
    scalar on a grid that `split` (SHEAR_SHAPES) splits first: the shifted x faces cross ranks along y,
    are exchanged along x, or stay local (z); deltay starts past two points.  `exchange`: how GPU ranks
    exchange their ghost zones (Simulation's keyword)."""
    import numpy as np

    shape = SHEAR_SHAPES[split]
    extra = dict(passive_scalar=True, pscalar_diff=1e-2) if scalar else {}
    sim = ac.Simulation(shape=shape, box=(2.0, 3.0, 1.5), nu=2e-2, cs=1.0, dtype="float64", backend=backend,
                        comm=comm, physics="mhd", eta=3e-2, b_ext=(0.0, 0.0, 0.2), energy="entropy", chi=2e-2,
                        omega=(0.0, 0.0, 1.0), qshear=1.5, x0_shear=0.3, exchange=exchange, **extra)
    ac.init.random_velocity(sim, urms=0.1, seed=5)
    rng = np.random.default_rng(6)
    for name in ("ax", "ay", "az", "ss", "cc")[:4 + scalar]:
        sim[name] = 0.02 * rng.standard_normal(shape)  # every rank draws the same
    sim.deltay = 0.47
    return sim
