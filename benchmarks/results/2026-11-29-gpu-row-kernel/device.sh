#!/usr/bin/env bash
# One call on nvidia-h200: the time-series row's kernel of main against a
# candidate (trees built for the device's Python and carried in
# .trees/try.tar.xz; scripts/device-trees.sh): the row's GPU tests in the
# candidate, row times at 256^3 and 32^3 (row_times.py of
# ../2026-11-29-gpu-timeseries-rows) in both, the candidate also with
# ASTAROTH_TS_MOST_BLOCKS (the most blocks of the row's launch) set, and
# Nsight Compute of the row kernel (hydro and MHD, float32, 256^3) in both.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
HERE=$PWD/benchmarks/results/2026-11-29-gpu-row-kernel
ROWS=$PWD/benchmarks/results/2026-11-29-gpu-timeseries-rows/row_times.py
A=${A:-main} B=${B:-cand}
device_start $A
TAIL=3 in_tree $B tests.log 120 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_timeseries_reduction.py
tail -1 "$OUT/tests.log"
for round in 1 2; do
    for t in $A $B; do
        TAIL=6 in_tree $t rows.log 120 python3 $ROWS 256 hydro mhd mhd+entropy
    done
done
for most in 4096 1024; do
    TAIL=6 in_tree $B rows.log 120 env ASTAROTH_TS_MOST_BLOCKS=$most python3 $ROWS 256 hydro mhd mhd+entropy
done
for t in $A $B; do
    TAIL=6 in_tree $t rows.log 120 python3 $ROWS 32 hydro mhd mhd+entropy
done
grep -v "^#" "$OUT/rows.log"
for physics in hydro mhd; do
    for t in $A $B; do
        TAIL=400 in_tree $t ncu-$physics-$t.log 150 ncu --kernel-name regex:timeseries_kernel --launch-skip 1 \
            --launch-count 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
            --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis \
            python3 $HERE/one_row.py 256 $physics float32
        grep -E "Duration|Registers Per|Achieved Occupancy|Executed Ipc A|Stack Size|Memory Throughput" \
            "$OUT/ncu-$physics-$t.log" | head -8
    done
done
