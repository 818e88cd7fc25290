#!/usr/bin/env bash
# The second call, on 4 GPUs of one host: A (main before this session) against
# B2 (the reduction's results in one pinned copy, and the two changes of the
# first call) and C2 (B2 whose split step does not wait for the GPU at its
# end); trees /tmp/tryso/{A,B2,C2} built for the device's Python 3.12 and
# carried in .trees/try.tar.xz.  Run from the repository root; logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
HERE=$PWD/benchmarks/results/2026-11-28-gpu-forcing-reduces
PARTS=$PWD/benchmarks/results/2026-11-28-gpu-x4-final/run_step_parts.py
NGPU=$(nvidia-smi -L | wc -l)
[ -d /tmp/tryso/C2/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
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
( CUDA_VISIBLE_DEVICES=0 TAIL=12 in_tree B2 gpu-tests-one-2.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py ) &
( for t in A B2; do for args in "256 float32" "32 float32"; do
      CUDA_VISIBLE_DEVICES=1 in_tree $t forced-2.log 60 python3 $HERE/forced_run.py $args
  done; done ) &
( for t in A B2; do
      CUDA_VISIBLE_DEVICES=2 TAIL=11 in_tree $t sweeps-float32-2.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype float32 --methods 55p
  done ) &
wait
tail -n 2 "$OUT/gpu-tests-one-2.log"
grep -E "^# commit|^forced" "$OUT/forced-2.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-float32-2.log | grep -E "commit|True|False"
TAIL=12 in_tree B2 gpu-tests-2.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests-2.log"
for t in B2 C2; do in_tree $t check-2.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check auto; done
grep -E "^# commit|^check" "$OUT/check-2.log"
for t in A B2 C2; do in_tree $t parts-2.log 90 $MPIRUN -np $NGPU python3 $PARTS 256 float32; done
grep -E "^# commit|^run step" "$OUT/parts-2.log"
for args in "weak 256 float32 hydro run" "weak 256 float32 mhd+entropy run" "strong 512 float32 hydro run"; do
    in_tree B2 scaling-2.log 120 $MPIRUN -np 1 python3 scripts/scaling.py $args
    for t in A B2 C2 A B2 C2; do in_tree $t scaling-2.log 120 $MPIRUN -np $NGPU python3 scripts/scaling.py $args; done
done
for how in step run; do
    in_tree B2 scaling-2.log 120 $MPIRUN -np 1 python3 scripts/scaling.py weak 256 float32 hydro+shock $how
    in_tree B2 scaling-2.log 120 $MPIRUN -np $NGPU python3 scripts/scaling.py weak 256 float32 hydro+shock $how
done
grep -E "^# commit|^weak|^strong" "$OUT/scaling-2.log"
