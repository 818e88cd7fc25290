"""An ensemble of COUNT MHD members of N^3 (astaroth.bench.sweep_members)
that runs a few steps in shared launches: for Nsight Compute to profile the
members' signal-speed reduction (--kernel-name regex:signal_members, and
before the streamed body the ghost fill, regex:fill_faces_members).

    python members_once.py [N [COUNT [DTYPE]]]"""
import sys

import astaroth as ac
from astaroth.bench import sweep_members

n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
count = int(sys.argv[2]) if len(sys.argv) > 2 else 16
dtype = sys.argv[3] if len(sys.argv) > 3 else "float32"
ens = ac.Ensemble(sweep_members("cuda", "55p", dtype, n, count, "mhd", False))
dt = min(sim.cfl_dt() for sim in ens)
ens.run(until=ens[0].t + 6 * dt)
