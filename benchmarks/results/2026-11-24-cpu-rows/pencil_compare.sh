#!/bin/bash
# Microseconds per grid point and RK3 step, one core, 64^3 float64: the
# Pencil Code (run directories made from pencil/<run>/, built with
# GNU-GCC-O3.conf) against astaroth's CPU backend on the same problem
# (nu, eta, B_ext, cs, box of pencil/*/run.in), interleaved, ROUNDS rounds.
# OLD_TREE: astaroth before the row loop, timed beside them ("-": not timed).
# PHYSICS: the rows, each a run directory PHYSICS64: mhd, hydro (the default,
# isothermal, nt=40), entropy (hydro+entropy), mhdentropy (MHD+entropy);
# the entropy runs step nt=200 (pencil/*entropy64/run.in), astaroth as many.
# A fresh run directory needs mkdir -p data/proc0 data/allprocs before start.x.
# usage: pencil_compare.sh PENCIL_RUNS_DIR ASTAROTH_TREE OLD_TREE [ROUNDS [PHYSICS...]] > pencil.log
set -e
runs=$1; tree=$2; old=$3; rounds=${4:-3}; shift $(( $# < 4 ? $# : 4 )); physics=${*:-mhd hydro}
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
export OMP_NUM_THREADS=1
echo "# astaroth: $tree ($(git -C "$tree" rev-parse --short HEAD)), old: $old; Pencil Code: $(git -C /work/pencil-src rev-parse --short HEAD 2>/dev/null || echo /work/pencil-src)"
echo "# rows: $physics; Pencil runs: $runs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
astaroth() ( # tree physics -> us per point per step (from /: the tree, not the working directory, on sys.path)
    cd / && PYTHONPATH=$1 python - "$2" <<'PY'
import sys, time, numpy as np, astaroth as ac
phys = sys.argv[1]
kw = dict(physics="mhd", eta=0.03, b_ext=(0.0, 0.0, 0.1)) if phys.startswith("mhd") else {}
if phys.endswith("entropy"):  # pencil/*entropy64: eos_idealgas, iheatcond='chi-const'
    kw.update(energy="entropy", gamma=5 / 3, cp=1.0, rho0=1.0, chi=0.02)
steps = 200 if phys.endswith("entropy") else 40
sim = ac.Simulation(shape=(64,) * 3, box=(2 * np.pi,) * 3, nu=0.05, cs=1.0, dtype="float64", backend="cpu", **kw)
x, y, z = np.meshgrid(sim.x, sim.y, sim.z, indexing="ij")
sim["ux"], sim["uy"], sim["uz"] = 0.1 * np.sin(y), 0.05 * np.sin(2 * z), 0.02 * np.sin(x)
sim["lnrho"] = 0.01 * np.sin(x)
if "ax" in sim.field_names:
    sim["ax"], sim["ay"], sim["az"] = 0.05 * np.cos(y), 0.03 * np.cos(z), 0.02 * np.cos(x)
if "ss" in sim.field_names:  # initss='cosx_cosy_cosz', ampl_ss=0.01
    sim["ss"] = 0.01 * np.cos(x) * np.cos(y) * np.cos(z)
sim._grid.step(0.02, 2)
t0 = time.perf_counter(); sim._grid.step(0.02, steps); t = time.perf_counter() - t0
print(f"{1e6 * t / steps / 64 ** 3:.3f}")
PY
)
pencil() { # run dir -> us per point per step (the Pencil Code's own figure)
    (cd "$runs/$1" && ./src/run.x > run.log 2>&1 && grep "^ *Wall clock time/timestep/meshpoint" run.log | sed 's/.*= *//' | xargs)
}
for r in $(seq "$rounds"); do
    for phys in $physics; do
        p=$(pencil ${phys}64); a=$(astaroth "$tree" $phys)
        if [ "$old" = - ]; then echo "round $r $phys: pencil $p, astaroth $a us/pt/step"
        else o=$(astaroth "$old" $phys); echo "round $r $phys: pencil $p, astaroth $a, astaroth-old $o us/pt/step"; fi
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
