#!/usr/bin/env bash
# One call: sim.run against the fixed-dt step (run_rates.py) and the GPU
# time of each kernel of MHD float32 at 256^3 (kernel_times.py), for each
# tree of TREES (prebuilt for the device's Python, .trees/try.tar.xz;
# scripts/device-trees.sh), in ROUNDS alternating rounds.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
HERE=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order
TREES=${TREES:-main35 held1 held2}
device_start ${TREES%% *}
for round in $(seq ${ROUNDS:-1}); do
    for t in $TREES; do
        TAIL=4 in_tree $t run-rates.log 200 python $PROFILE/run_rates.py 256 ${DTYPES:-float32}
        TAIL=12 in_tree $t kernel-times.log 200 python $HERE/kernel_times.py 256 ${CASES:-mhd:float32}
    done
done
