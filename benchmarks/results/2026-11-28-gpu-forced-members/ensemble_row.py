"""One sweep row's ensemble rate, alone in its process: python3
ensemble_row.py PHYSICS FORCED COUNT N DTYPE [TARGET_SECONDS] (astaroth.bench's
sweep_members and _ensemble_rate, as `astaroth bench --sweeps` times them)."""
import sys

from astaroth.bench import _ensemble_rate, sweep_members

physics, forced, count, n, dtype = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
target = float(sys.argv[6]) if len(sys.argv) > 6 else 1.0
sims = sweep_members("cuda", "55p", dtype, n, count, physics, forced)
print(f"{physics} forced={forced} {count} x {n}^3 {dtype}: {_ensemble_rate(sims, 20, target):.0f} M/s")
