#!/usr/bin/env bash
# Second call on 4 GPUs: A (main) against B (the forcing in the last
# substep, solo and ensemble members, not the magnetic module's; the entropy
# module's signal-speed reduction there), trees as device.sh's.  GPU 0 B's
# GPU tests, GPUs 1-2 the sweeps, GPU 3 Nsight Compute of a forced hydro
# run's last substep and forcing kernels in A and B.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start B
HERE=$PWD/benchmarks/results/2026-11-28-gpu-last-substep
( CUDA_VISIBLE_DEVICES=0 TAIL=25 in_tree B gpu-tests.log 420 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py ) &
for i in 1 2; do
    dtype=$([ $i = 1 ] && echo float32 || echo float64)
    ( for round in 1 2; do for t in A B; do
          CUDA_VISIBLE_DEVICES=$i TAIL=11 in_tree $t sweeps-$dtype.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
      done; done ) &
done
( for t in A B; do
      CUDA_VISIBLE_DEVICES=3 TAIL=80 in_tree $t ncu-forced-hydro-f32-$t.log 240 ncu --kernel-name regex:"stream_substep|forcing" --launch-skip 12 --launch-count 4 --section SpeedOfLight --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes.sum python3 $HERE/forced_profile.py 256 float32
  done ) &
wait
tail -n 4 "$OUT/gpu-tests.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
grep -E "^  [a-z_]+.*kernel|Duration|Executed Ipc A|Registers|inst_executed|dram__bytes|Memory Throughput" "$OUT"/ncu-*.log | head -80
