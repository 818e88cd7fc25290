#!/usr/bin/env bash
# Third call on 4 GPUs: A (main) against B (the forcing in the last
# substep, solo and ensemble members (their forced instances their own), not the magnetic module's; the entropy
# module's signal-speed reduction there), trees as device.sh's.  GPU 0 B's
# GPU tests, GPUs 1-2 the sweeps, GPU 3 Nsight Compute of a forced hydro
# run's last substep and forcing kernels in A and B, then C (main with the
# branch shock-pass-columns: the split shock profile's pass kernel walking
# x-y columns) tested on one GPU; then on all four C's split GPU tests and
# the weak-scaling shock step, A against C.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start C
HERE=$PWD/benchmarks/results/2026-11-28-gpu-last-substep
( CUDA_VISIBLE_DEVICES=0 TAIL=25 in_tree B gpu-tests.log 420 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py ) &
for i in 1 2; do
    dtype=$([ $i = 1 ] && echo float32 || echo float64)
    ( for round in 1 2; do for t in A B; do
          CUDA_VISIBLE_DEVICES=$i TAIL=11 in_tree $t sweeps-$dtype.log 150 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
      done; done ) &
done
( for t in A B; do
      CUDA_VISIBLE_DEVICES=3 TAIL=400 in_tree $t ncu-forced-hydro-f32-$t.log 240 ncu --kernel-name regex:"stream_substep|forcing" --launch-skip 12 --launch-count 8 --section SpeedOfLight --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes.sum python3 $HERE/forced_profile.py 256 float32
  done
  CUDA_VISIBLE_DEVICES=3 TAIL=12 in_tree C gpu-tests-C-one.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_shock.py tests/test_shear_gpu.py ) &
wait
tail -n 4 "$OUT/gpu-tests.log"
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
grep -E "^  [a-z_ ]+.*\(|Duration|Registers Per|inst_executed|dram__bytes" "$OUT"/ncu-*.log | cut -c1-120
tail -n 2 "$OUT/gpu-tests-C-one.log"
MPIRUN="mpirun --allow-run-as-root --oversubscribe --bind-to none"
NGPU=$(nvidia-smi -L | wc -l)
TAIL=12 in_tree C gpu-tests-C.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_mpi_gpu.py
tail -n 2 "$OUT/gpu-tests-C.log"
for t in A C A C; do in_tree $t scaling.log 120 $MPIRUN -np $NGPU python3 scripts/scaling.py weak 256 float32 hydro+shock step; done
grep -E "^# commit|^weak" "$OUT/scaling.log"
