#!/usr/bin/env bash
# One call on 4 GPUs of one host: A (main) against B (the forced hydro step's
# dt reduced by its forcing kernel; a split MHD run's first substep on the
# ghost zones its CFL step exchanged), trees built for the device's Python
# 3.12 and carried in .trees/try.tar.xz (/tmp/tryso/A, /tmp/tryso/B).  Run
# from the repository root; logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-device-logs}
mkdir -p "$OUT" /tmp/tryso
export PYTHONUNBUFFERED=1
HERE=$PWD/benchmarks/results/2026-11-28-gpu-forcing-reduces
NGPU=$(nvidia-smi -L | wc -l)
[ -d /tmp/tryso/B/astaroth ] || tar -xJf .trees/try.tar.xz -C /tmp/tryso
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
# one GPU each: B's tests of the device loops and ensembles on GPU 0; A and B one after the other on the
# same GPU for the sweeps of every physics (float32 on GPU 1, float64 on GPU 2, two rounds) and forced runs
( CUDA_VISIBLE_DEVICES=0 TAIL=12 in_tree B gpu-tests-one.log 300 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py ) &
for i in 1 2; do
    dtype=$([ $i = 1 ] && echo float32 || echo float64)
    ( for round in 1 2; do for t in A B; do
          CUDA_VISIBLE_DEVICES=$i TAIL=11 in_tree $t sweeps-$dtype.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
      done; done ) &
done
( for t in A B; do for args in "256 float32" "64 float32" "256 float64" "32 float32"; do
      CUDA_VISIBLE_DEVICES=3 in_tree $t forced.log 60 python3 $HERE/forced_run.py $args
  done; done
  for t in A B; do CUDA_VISIBLE_DEVICES=3 TAIL=12 in_tree $t bench.log 100 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p; done ) &
wait
tail -n 2 "$OUT/gpu-tests-one.log"
grep -E "^# commit|^forced" "$OUT/forced.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
# all GPUs: B's split GPU tests, then sim.run of split runs, A and B
TAIL=12 in_tree B gpu-tests.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests.log"
in_tree B check.log 90 $MPIRUN -np $NGPU python3 scripts/scaling.py check auto
grep -E "^check" "$OUT/check.log"
for args in "weak 256 float32 mhd+entropy run" "weak 256 float32 hydro run"; do
    in_tree B scaling.log 120 $MPIRUN -np 1 python3 scripts/scaling.py $args
    for t in A B A B; do in_tree $t scaling.log 120 $MPIRUN -np $NGPU python3 scripts/scaling.py $args; done
done
grep -E "^# commit|^weak|^strong" "$OUT/scaling.log"
