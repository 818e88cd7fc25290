#!/usr/bin/env bash
# Device call 4 (session 14): why warps stall in the MHD+entropy float32
# substep, main (2 blocks an SM) and v1 (3 blocks): ncu's stall reasons.
set -u
T=$PWD/.trees
for tree in main v1; do ( cd "$T/$tree" && python3 setup.py build_ext --inplace > "$OUT/build4-$tree.log" 2>&1 ) & done
wait
M=$(for r in barrier branch_resolving dispatch_stall drain imc_miss lg_throttle long_scoreboard math_pipe_throttle membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping tex_throttle wait; do printf "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio," $r; done)
for tree in main v1; do
  { echo "# device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); tree: $tree (main 5149560; v1: MHD+entropy float32 {32,4,1,384})"
    echo "# command: ncu --profile-from-start off -k regex:stream_substep --launch-count 1 --metrics <stall reasons per issue> python3 kernels_entropy.py mhd float32"
    (cd "$T/$tree" && PYTHONPATH=$PWD timeout 150 /usr/local/cuda/bin/ncu --profile-from-start off -k regex:stream_substep --launch-count 1 --metrics "${M%,}" python3 "$T/kernels_entropy.py" mhd float32 2>&1 | grep -v "^==PROF==" | cut -c1-200); } > "$OUT/ncu-stalls-$tree.log" 2>&1
  echo "== $tree"; grep -E "ratio" "$OUT/ncu-stalls-$tree.log" | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | sort -k3 -n -r | head -8
done
