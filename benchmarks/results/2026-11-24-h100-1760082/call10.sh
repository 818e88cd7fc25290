#!/usr/bin/env bash
# Device call 10: the kernels of one 256^3 step with z walls and periodic (Nsight
# Compute, gpu__time_duration), before the walls-gpu work (97d73cc) and on main
# (1760082), MHD float32 and hydro float64.
set -u
T=$PWD/.trees
for tree in main pre; do
  (cd "$T/$tree" && python3 setup.py build_ext --inplace > build.log 2>&1) &
done
wait
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1"
    echo "# command: $2"
}
for case in "mhd float32 walls" "mhd float32" "hydro float64 walls"; do
  for pair in "pre 97d73cc" "main 1760082"; do
    set -- $pair
    { header "$2" "ncu --profile-from-start off --metrics gpu__time_duration.sum python3 kernels.py $case"
      (cd "$T/$1" && PYTHONPATH=$PWD timeout 100 /usr/local/cuda/bin/ncu --profile-from-start off --metrics gpu__time_duration.sum python3 "$T/kernels.py" $case 2>&1 | grep -E "^  [a-zA-Z_]|gpu__time_duration|ran|rror" | cut -c1-120 ); } >> "$OUT/step-kernels-walls.log" 2>&1
  done
done
grep -E "^# commit|^# command|^  |gpu__" "$OUT/step-kernels-walls.log" | sed -E 's/\(.*//' | head -80
