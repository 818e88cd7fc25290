#!/usr/bin/env bash
# One call: the deferred order's second substep (MHD float32 256^3, the
# first step of sim.run) under Nsight Compute in trees MAIN and NEW
# (--set full, the one kernel), its stall reasons and SASS with the
# sampled stalls by instruction; and where NEW's SASS places its global
# loads, shared stores and barrier (cuobjdump).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
HERE=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order
MAIN=${MAIN:-main35} NEW=${NEW:-held}
device_start $NEW
for t in $MAIN $NEW; do
    rep="$OUT/ncu-form-$t"
    {
        header $t "ncu --set full --kernel-name regex:stream_substep --launch-skip 1 --launch-count 1 python mhd_steps.py 256 float32 2"
        (cd /tmp/tryso/$t && PYTHONPATH=$PWD ncu --set full --import-source no --kernel-name regex:stream_substep \
            --launch-skip 1 --launch-count 1 -o "$rep" python $HERE/mhd_steps.py 256 float32 2 2>&1 | tail -2)
        ncu --import "$rep.ncu-rep" --print-summary none --page details 2>&1 |
            grep -E "^  stream_substep|Duration|Registers Per|Issue Slots Busy|DRAM Throughput|L1/TEX Cache Throughput|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued|Dynamic Shared"
        ncu --import "$rep.ncu-rep" --print-summary none --page raw 2>&1 |
            grep -E "issue_stalled_[a-z_]+_per_issue_active.ratio|l1tex__data_pipe_lsu_wavefronts_mem_shared.sum |dram__bytes_read.sum "
    } > "$rep.txt" 2>&1
    ncu --import "$rep.ncu-rep" --page source --csv --print-source sass > "$rep-sass.csv" 2>&1
    xz -9 "$rep-sass.csv" "$rep.ncu-rep"
done
so=$(ls /tmp/tryso/$NEW/astaroth/_core*.so)
cuobjdump -sass -fun '_Z25stream_substep_kernel_f32ILj3ELi32ELi8ELi2ELi0ELb1ELi2EEv10fields_f32IXcl14ac_field_countcl17ac_config_modulesT_EEEES1_S1_S1_9shape_f3218stencil_scales_f32if14ac_device_stepbbbPKfi15param_piece_f32S7_S7_13ac_shear_flow' "$so" > "$OUT/sass-form-$NEW.txt" 2>&1
grep -nE "BAR.SYNC|LDG.E.128|STS.128|LDGSTS|EXIT" "$OUT/sass-form-$NEW.txt" | head -80
