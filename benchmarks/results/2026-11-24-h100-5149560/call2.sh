#!/usr/bin/env bash
# Device call 2 (session 14): the entropy rows of main, three bench runs, and
# ncu (warp states, memory, pipes) of the MHD+entropy float32 substep in main
# (2 blocks of 200 registers an SM) and v1 (3 blocks of 167), to see why v1
# was slower (call 1).
set -u
T=$PWD/.trees
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1"
    echo "# command: $2"
}
for tree in main v1; do
  ( cd "$T/$tree" && python3 setup.py build_ext --inplace > "$OUT/build2-$tree.log" 2>&1 ) &
done
wait
for tree in main v1; do echo "$tree: $(ls $T/$tree/astaroth/_core*.so 2>/dev/null | wc -l) module"; done
export PYTHONUNBUFFERED=1
for run in 1 2 3; do
  { header "main 5149560 (CUDA as 69c0791), run $run" "python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 --seconds 3"
    (cd "$T/main" && PYTHONPATH=$PWD timeout 150 python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 --seconds 3 2>&1); } > "$OUT/bench-entropy-main-$run.log"
  grep -E "entropy +[58] " "$OUT/bench-entropy-main-$run.log"
done
SECTIONS="--section WarpStateStats --section SchedulerStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats"
for tree in main v1; do
  { header "$tree" "ncu --profile-from-start off -k regex:stream_substep --launch-count 1 $SECTIONS python3 kernels_entropy.py mhd float32"
    (cd "$T/$tree" && PYTHONPATH=$PWD timeout 150 /usr/local/cuda/bin/ncu --profile-from-start off -k regex:stream_substep --launch-count 1 $SECTIONS python3 "$T/kernels_entropy.py" mhd float32 2>&1 | grep -v "^==PROF==" | cut -c1-200); } > "$OUT/ncu-warps-$tree.log" 2>&1
  grep -E "Duration|Registers Per|Achieved Active|Issued Warp|No Eligible|Warp Cycles Per Issued|Shared Memory|Mem Pipes|MIO|LSU" "$OUT/ncu-warps-$tree.log" | head -16
done
