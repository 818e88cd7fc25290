#!/usr/bin/env bash
# The device call of the walls branch (issue 27): build, the GPU tests of the
# walls and the stored bit-for-bit runs, astaroth bench --walls at 256^3.
# Run from the root of an exported tree: bash benchmarks/results/2026-11-24-h100-walls/run.sh
set -u
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "# commit: $(cat COMMIT 2>/dev/null)"; echo "# command: $1"; }
export PYTHONPATH=$PWD
{ hdr "python setup.py build_ext --inplace"; s=$SECONDS; timeout 200 python setup.py build_ext --inplace > build-full.log 2>&1; echo "exit $? build seconds $((SECONDS - s))"; grep -E "error|ptxas info.*stream|spill" build-full.log | head -40; } > $OUT/build.log 2>&1
tail -3 $OUT/build.log
{ hdr "python -m pytest -q -m gpu tests/test_walls.py tests/test_bitwise.py"; timeout 150 python -m pytest -q -m gpu tests/test_walls.py tests/test_bitwise.py 2>&1 | tail -40; } > $OUT/tests-gpu.log 2>&1
tail -3 $OUT/tests-gpu.log
{ hdr "python -m astaroth bench --walls --backend cuda --physics all --sizes 256 --seconds 1"; timeout 200 python -m astaroth bench --walls --backend cuda --physics all --sizes 256 --seconds 1 2>&1; } > $OUT/bench-walls.log 2>&1
cat $OUT/bench-walls.log
