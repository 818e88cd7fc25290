import numpy as np, astaroth as ac
sim = ac.Simulation(shape=(64, 64, 64), nu=5e-3, cs=1.0, dtype="float32", backend="cpu")
ac.init.random_velocity(sim, urms=0.1, seed=1)
sim.step(1e-3)
for _ in range(3):
    sim._grid.step(1e-3, 1, False)
