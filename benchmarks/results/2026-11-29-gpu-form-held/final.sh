#!/usr/bin/env bash
# The last call: the kept change (tree NEW) against main (MAIN): the
# one-GPU suite of ../2026-11-29-gpu-deferred-order/device.sh on NEW,
# sim.run against the fixed-dt step of every physics in both precisions
# (run_rates.py 256) of MAIN and NEW, NEW's kernel times (MHD float32 at
# 256^3), and Nsight Compute of NEW's deferred second substep (profile.sh's).
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD HERE=benchmarks/results/2026-11-29-gpu-form-held
MAIN=${MAIN:-main35} NEW=${NEW:-form}
MAIN=$MAIN NEW=$NEW PARTS=tests bash benchmarks/results/2026-11-29-gpu-deferred-order/device.sh
TREES="$MAIN $NEW" DTYPES="float32 float64" CASES="mhd:float32" bash $HERE/variants.sh
. scripts/device-trees.sh
NCU_DETAILS="^  stream_substep|Duration|Registers Per|Issue Slots Busy|DRAM Throughput|L1/TEX Cache Throughput|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued|Dynamic Shared" \
NCU_RAW="issue_stalled_[a-z_]+_per_issue_active.ratio|l1tex__data_pipe_lsu_wavefronts_mem_shared.sum |dram__bytes_read.sum " \
    ncu_report $NEW ncu-form-$NEW stream_substep 1 python $ROOT/benchmarks/results/2026-11-29-gpu-deferred-order/mhd_steps.py 256 float32 2 >/dev/null
