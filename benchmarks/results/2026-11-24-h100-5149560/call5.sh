#!/usr/bin/env bash
# Device call 5 (session 14): the streaming kernel's z loop unrolled by 7
# (v2: `#pragma unroll 7`, every instance), so that the queue of pending
# d_i d_z sums shifts by renaming registers instead of moves; the float32
# entropy rows against main, and the instructions of the MHD+entropy
# float32 substep.
set -u
T=$PWD/.trees
for tree in main v2; do ( cd "$T/$tree" && python3 setup.py build_ext --inplace > "$OUT/build5-$tree.log" 2>&1 ) & done
wait
for tree in main v2; do echo "$tree: $(ls $T/$tree/astaroth/_core*.so 2>/dev/null | wc -l) module"; done
export PYTHONUNBUFFERED=1
cd "$T/main"
{ echo "# device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "# commit: A = main 5149560, B = v2 (stream_substep.cuh: #pragma unroll 7 on the z loop)"
  echo "# command: AB_GROUPS=entropy python3 scripts/ab.py 3 main v2"
  AB_GROUPS=entropy timeout 300 python3 scripts/ab.py 3 "$T/main" "$T/v2" 2>&1; } > "$OUT/ab-unroll.log"
tail -6 "$OUT/ab-unroll.log"
for tree in main v2; do
  (cd "$T/$tree" && PYTHONPATH=$PWD timeout 120 /usr/local/cuda/bin/ncu --profile-from-start off -k regex:stream_substep --launch-count 1 --metrics smsp__inst_executed.sum,gpu__time_duration.sum,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio python3 "$T/kernels_entropy.py" mhd float32 2>&1 | grep -E "inst_executed|duration|ratio" | sed "s/^/$tree /") | tee -a "$OUT/ncu-unroll.log"
done
(cd "$T/v2" && PYTHONPATH=$PWD timeout 100 python3 -m pytest -q -m gpu tests/test_configurations_gpu.py -k entropy 2>&1 | tail -1) | tee "$OUT/tests-v2.log"
