#!/usr/bin/env bash
# One call on 4 GPUs of one host: A (main) against B (the forcing and the
# entropy module's signal-speed reduction in the device loop's last
# substep), trees built for the device's Python 3.12 and carried in
# .trees/try.tar.xz (/tmp/tryso/A, /tmp/tryso/B).  Run from the repository
# root; logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start B
HERE=$PWD/benchmarks/results/2026-11-28-gpu-last-substep
# GPU 0: B's GPU tests of the device loops, ensembles and stored bitwise runs
( CUDA_VISIBLE_DEVICES=0 TAIL=25 in_tree B gpu-tests.log 420 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py ) &
# GPUs 1, 2: the sweeps of every physics, A and B one after the other, two rounds
for i in 1 2; do
    dtype=$([ $i = 1 ] && echo float32 || echo float64)
    ( for round in 1 2; do for t in A B; do
          CUDA_VISIBLE_DEVICES=$i TAIL=11 in_tree $t sweeps-$dtype.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
      done; done ) &
done
# GPU 3: the bench rows (host-driven kernels: their instances are A's), A then B
( for t in A B; do
      for args in "" "--physics mhd" "--energy entropy" "--walls" "--terms --physics all"; do
          CUDA_VISIBLE_DEVICES=3 TAIL=14 in_tree $t bench.log 120 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p $args
      done
  done ) &
wait
tail -n 4 "$OUT/gpu-tests.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
