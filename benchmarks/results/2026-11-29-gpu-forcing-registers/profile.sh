#!/usr/bin/env bash
# One call on nvidia-h200-x2: the forcing kernel after an MHD step (256^3
# float32, helically forced, a step of sim.run past the first three) under
# Nsight Compute in trees OLD (before the change) and NEW (main with it),
# the one launch with --set full; then NEW's split GPU tests on the two
# GPUs.  Trees built on the development machine for the device's Python
# and carried in .trees/try.tar.xz (scripts/device-trees.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
STEPS=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order/mhd_steps.py
OLD=${OLD:-head} NEW=${NEW:-main2}
device_start $NEW
for t in $OLD $NEW; do
    NCU_DETAILS="^  forcing|Duration|Registers Per|Memory Throughput|DRAM Throughput|Issue Slots Busy|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued" \
    NCU_RAW="issue_stalled_(long_scoreboard|lg_throttle|drain|wait)_per_issue_active.ratio|dram__bytes_read.sum |dram__bytes_write.sum |lts__t_sectors_op_read.sum |lts__t_sectors_op_write.sum " \
        ncu_report $t ncu-forcing-$t forcing_sample_kernel 2 python $STEPS 256 float32 4 mhd forced
done
TAIL=25 in_tree $NEW split-tests-$NEW.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/split-tests-$NEW.log"
