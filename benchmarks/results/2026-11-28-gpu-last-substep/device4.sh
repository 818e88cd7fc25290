#!/usr/bin/env bash
# Fourth call, on 2 GPUs of one host (no 4-GPU machine was lent then): A
# (main before this session) against E (main after it: the forcing and the
# entropy module's reduction in the last substep, the shock passes walking
# columns, the ghost faces copied side by side).  GPU 0 E's one-GPU tests,
# then Nsight Compute of the MHD run's ghost faces and reduction; GPU 1 the
# sweeps (float32 two rounds, float64 one); then E's split GPU tests on both.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start E
HERE=$PWD/benchmarks/results/2026-11-28-gpu-last-substep
( CUDA_VISIBLE_DEVICES=0 TAIL=25 in_tree E gpu-tests.log 420 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
  for t in A E; do
      CUDA_VISIBLE_DEVICES=0 TAIL=200 in_tree $t ncu-mhd-f32-$t.log 200 ncu --kernel-name regex:"fill_faces|signal_reduce" --launch-skip 4 --launch-count 4 --section SpeedOfLight --section LaunchStats --metrics smsp__inst_executed.sum,dram__bytes.sum python3 $HERE/mhd_profile.py 256 float32
  done ) &
( for round in 1 2; do for t in A E; do
      CUDA_VISIBLE_DEVICES=1 TAIL=11 in_tree $t sweeps-float32.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype float32 --methods 55p
  done; done
  for t in A E; do
      CUDA_VISIBLE_DEVICES=1 TAIL=11 in_tree $t sweeps-float64.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype float64 --methods 55p
  done ) &
wait
tail -n 4 "$OUT/gpu-tests.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
grep -E "^  [a-z_ ]+.*\(|Duration|inst_executed|dram__bytes" "$OUT"/ncu-*.log | cut -c1-120
TAIL=12 in_tree E gpu-tests-split.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests-split.log"
