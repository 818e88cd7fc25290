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
    rep="$OUT/ncu-forcing-$t"
    {
        header $t "ncu --set full --kernel-name regex:forcing_sample_kernel --launch-skip 2 --launch-count 1 python mhd_steps.py 256 float32 4 mhd forced"
        (cd /tmp/tryso/$t && PYTHONPATH=$PWD CUDA_VISIBLE_DEVICES=0 timeout 100 ncu --set full --import-source no \
            --kernel-name regex:forcing_sample_kernel --launch-skip 2 --launch-count 1 -o "$rep" \
            python $STEPS 256 float32 4 mhd forced 2>&1 | tail -2)
        ncu --import "$rep.ncu-rep" --print-summary none --page details 2>&1 |
            grep -E "^  forcing|Duration|Registers Per|Memory Throughput|DRAM Throughput|Issue Slots Busy|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued"
        ncu --import "$rep.ncu-rep" --print-summary none --page raw 2>&1 |
            grep -E "issue_stalled_(long_scoreboard|lg_throttle|drain|wait)_per_issue_active.ratio|dram__bytes_read.sum |dram__bytes_write.sum |lts__t_sectors_op_read.sum |lts__t_sectors_op_write.sum "
    } > "$rep.txt" 2>&1
    xz -9 "$rep.ncu-rep"
    cat "$rep.txt"
done
TAIL=25 in_tree $NEW split-tests-$NEW.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
tail -1 "$OUT/split-tests-$NEW.log"
