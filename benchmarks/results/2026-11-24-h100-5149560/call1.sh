#!/usr/bin/env bash
# Device call 1 (session 14): the float32 entropy rows with more blocks an SM
# (v1: MHD+entropy {32,4,1,384}, 3 blocks of 167 registers; hydro+entropy
# {32,4,1,640}, 5 blocks of 96) against main 5149560, interleaved.
set -u
T=$PWD/.trees
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: $1"
    echo "# command: $2"
}
for tree in main v1; do
  ( cd "$T/$tree" && python3 setup.py build_ext --inplace > "$OUT/build-$tree.log" 2>&1 ) &
done
wait
for tree in main v1; do echo "$tree: $(ls $T/$tree/astaroth/_core*.so 2>/dev/null | wc -l) module"; done
grep -A3 "ILj7ELi32ELi4ELi1" "$OUT/build-v1.log" | grep -m2 "Used\|spill"
export PYTHONUNBUFFERED=1
cd "$T/main"
{ header "A = main 5149560, B = v1 (schedules.cuh: MHD+entropy f32 {32,4,1,384}, hydro+entropy f32 {32,4,1,640})" "AB_GROUPS=entropy:float32 python3 scripts/ab.py 4 main v1"
  AB_GROUPS=entropy:float32 timeout 240 python3 scripts/ab.py 4 "$T/main" "$T/v1" 2>&1; } > "$OUT/ab-entropy-f32.log"
tail -5 "$OUT/ab-entropy-f32.log"
{ header "v1" "python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 --dtype float32 --seconds 3"
  (cd "$T/v1" && PYTHONPATH=$PWD timeout 120 python3 -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 --dtype float32 --seconds 3 2>&1); } > "$OUT/bench-entropy-v1.log"
tail -6 "$OUT/bench-entropy-v1.log"
{ header "v1" "pytest -q -m gpu tests/test_configurations_gpu.py tests/test_gpu.py -k entropy"
  (cd "$T/v1" && PYTHONPATH=$PWD timeout 150 python3 -m pytest -q -m gpu tests/test_configurations_gpu.py tests/test_gpu.py -k entropy 2>&1 | tail -3); } > "$OUT/tests-v1.log" 2>&1
tail -3 "$OUT/tests-v1.log"
