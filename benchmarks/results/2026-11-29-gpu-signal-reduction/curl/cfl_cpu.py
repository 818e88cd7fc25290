"""cfl_dt of a 64^3 (argv[1]) MHD run on the CPU backend, best of five batches of ten: run in each tree
(PYTHONPATH) to compare them."""
import sys, time, numpy as np, astaroth as ac
n = int(sys.argv[1])
for physics in ("mhd",):
    sim = ac.Simulation(shape=(n, n, n), physics=physics, eta=1e-2, nu=1e-2, b_ext=(0, 0, 0.3), backend="cpu")
    rng = np.random.default_rng(1)
    for name in sim.field_names:
        sim[name] = 0.01 * rng.standard_normal((n, n, n))
    sim.cfl_dt()
    best = 1e9
    for _ in range(5):
        t0 = time.perf_counter(); [sim.cfl_dt() for _ in range(10)]; best = min(best, (time.perf_counter() - t0) / 10)
    print(f"{ac.__file__.split('/')[3]:8s} {physics} {n}^3 cfl_dt {best*1e3:.2f} ms = {best/n**3*1e9:.2f} ns/pt  dt={sim.cfl_dt()!r}")
