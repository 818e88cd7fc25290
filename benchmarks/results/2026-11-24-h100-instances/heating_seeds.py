"""The heating rate of forced turbulence with entropy over the mean forcing power,
for six forcing seeds at a small size on the CPU (the scatter of one run).
usage: python heating_seeds.py N T_END"""
import numpy as np, astaroth as ac, sys
N=int(sys.argv[1]); T=float(sys.argv[2])
for seed in range(1,7):
    sim = ac.Simulation(shape=(N,N,N), dtype="float64", backend="cpu", energy="entropy", nu=2e-2, chi=2e-2)
    sim.forcing = ac.Forcing(kmin=1, kmax=2, f0=0.05, seed=seed)
    p = ac.analysis.forcing_power(sim)
    e0 = ac.analysis.total_energy(sim)
    ts=[];es=[]
    for i in range(1,11):
        sim.run(until=T*i/10); ts.append(sim.t); es.append(ac.analysis.total_energy(sim)-e0)
    rate = np.polyfit([0]+ts,[0]+es,1)[0]
    print(seed, f"rate/power {rate/p:.3f}  end {es[-1]/(p*T):.3f}", flush=True)
