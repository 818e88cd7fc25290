#!/usr/bin/env bash
# sim.run of MHD with entropy in single precision: the device loop's own
# instance held the step's length in a register (243 registers against the
# host instance's 187) and ran at 0.82 of the bench row.  B = main, C = main
# with that instance reloading dt where each point uses it (the schedule
# row's reload_dt; 198 registers).  Both extensions built elsewhere for the
# device's Python and carried in .trees/try.tar.xz (tryso/B.so, tryso/C.so).
#   rates: alternating B C B C, sim.run of MHD+entropy (PHYSICS) at 256^3
#          after a warm-up run (run_rate.py; the bench rows of the same call's
#          first try, run-rate-entropy-first.log, are the host's steps)
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
SO=_core.cpython-312-x86_64-linux-gnu.so
case ${1:-rates} in
rates)
    rm -rf /tmp/tryso /tmp/a-src /tmp/t-*
    tar -C /tmp -xJf .trees/try.tar.xz
    for k in B C; do
        mkdir -p /tmp/t-$k && cp -r "$ROOT/astaroth" /tmp/t-$k/ && rm -f /tmp/t-$k/astaroth/_core*.so &&
            cp /tmp/tryso/$k.so /tmp/t-$k/astaroth/$SO
    done
    { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
      echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
      echo "# commit: B = ${COMMIT:-unknown}, C = B with the MHD+entropy float32 row's reload_dt (${TRY_COMMIT:-?})"
      echo "# command: per tree, alternating: astaroth.bench.run_sweep_physics_bench('cuda', 'float32', sizes=(256,), ensembles=(), physics=('hydro+entropy', 'mhd+entropy')); then python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256"
      for round in 1 2; do
          for k in B C; do
              echo "== tree $k, round $round"
              (cd /tmp/t-$k && PYTHONPATH=/tmp/t-$k timeout 100 python3 "$ROOT/benchmarks/results/2026-11-28-gpu-device-loop-dt/run_rate.py" ${PHYSICS:-mhd+entropy} 2>&1 | tail -4)
          done
      done
    } > "$OUT/run-rate-entropy.log" 2>&1
    grep -v "^#" "$OUT/run-rate-entropy.log"
    ;;
esac
