#!/usr/bin/env bash
# The last call, on 4 GPUs of one host: main at the session's end (F) tested,
# and timed against A (main before the session) where it changed what a
# split shock run costs; trees /tmp/tryso/{A,F} built for the device's
# Python 3.12 and carried in .trees/try.tar.xz.  Run from the repository
# root; logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
HERE=$PWD/benchmarks/results/2026-11-28-gpu-forcing-reduces
NGPU=$(nvidia-smi -L | wc -l)
[ -d /tmp/tryso/F/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' ')"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1 = $(cat /tmp/tryso/$1/COMMIT)"
    echo "# command: ${*:2}"
}
in_tree() { # tree log timeout cmd...
    local t=$1 log=$2 limit=$3; shift 3
    { header $t "$*"; (cd /tmp/tryso/$t && PYTHONPATH=/tmp/tryso/$t timeout $limit "$@" 2>&1 | tail -${TAIL:-3}); } >> "$OUT/$log" 2>&1
}
( CUDA_VISIBLE_DEVICES=0 TAIL=12 in_tree F gpu-tests-one-3.log 250 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_shock.py ) &
( for t in A F; do CUDA_VISIBLE_DEVICES=1 TAIL=12 in_tree $t bench-3.log 100 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p; done ) &
( for t in A F; do CUDA_VISIBLE_DEVICES=2 TAIL=12 in_tree $t bench-mhd-3.log 100 python3 -m astaroth bench --backend cuda --physics mhd --sizes 256; done ) &
( for t in A F; do for args in "256 float32" "32 float32"; do
      CUDA_VISIBLE_DEVICES=3 in_tree $t forced-3.log 60 python3 $HERE/forced_run.py $args
  done; done ) &
wait
tail -n 2 "$OUT/gpu-tests-one-3.log"
grep -E "^# commit|astaroth cuda" "$OUT/bench-3.log" "$OUT/bench-mhd-3.log"
grep -E "^# commit|^forced" "$OUT/forced-3.log"
TAIL=12 in_tree F gpu-tests-3.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests-3.log"
in_tree F check-3.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check auto
grep -E "^check" "$OUT/check-3.log"
for t in A F; do TAIL=5 in_tree $t shock-parts-3.log 100 $MPIRUN -np $NGPU python3 $HERE/shock_step_parts.py 256 float32; done
grep -E "^# commit|^shock" "$OUT/shock-parts-3.log"
for how in step run; do
    in_tree F scaling-3.log 100 $MPIRUN -np 1 python3 scripts/scaling.py weak 256 float32 hydro+shock $how
    for t in A F; do in_tree $t scaling-3.log 100 $MPIRUN -np $NGPU python3 scripts/scaling.py weak 256 float32 hydro+shock $how; done
done
grep -E "^# commit|^weak" "$OUT/scaling-3.log"
