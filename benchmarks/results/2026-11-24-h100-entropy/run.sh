#!/usr/bin/env bash
# The device call of issue 26 (energy="entropy"): build from source, the GPU
# tests of the entropy module and the stored isothermal runs bit for bit, the
# entropy rows of `astaroth bench` at 256^3, then the other GPU tests in the
# time left.  Run from the tree's root; writes the logs to $OUT.
set -u
T0=$SECONDS
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "# commit: $(cat COMMIT 2>/dev/null)"; echo "# command: $1"; }
{ hdr "python setup.py build_ext --inplace"; s=$SECONDS; python setup.py build_ext --inplace > $OUT/build-full.log 2>&1; echo "exit $? build seconds $((SECONDS - s))"; grep -E "ptxas info.*Compiling entry function.*stream_substep_kernel|Used [0-9]+ registers|bytes stack" $OUT/build-full.log | grep -B0 -A2 "stream_substep_kernel" ; } > $OUT/build.log 2>&1
tail -1 $OUT/build-full.log; head -5 $OUT/build.log | tail -1
{ hdr "python -m pytest -q -m gpu tests/test_entropy.py tests/test_entropy_features.py tests/test_bitwise.py"; PYTHONPATH=$PWD timeout 150 python -m pytest -q -m gpu tests/test_entropy.py tests/test_entropy_features.py tests/test_bitwise.py 2>&1 | tail -30; } > $OUT/gpu-tests.log 2>&1
tail -2 $OUT/gpu-tests.log
{ hdr "python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256"; PYTHONPATH=$PWD timeout 200 python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 2>&1; } > $OUT/bench-entropy.log 2>&1
cat $OUT/bench-entropy.log
LEFT=$((440 - (SECONDS - T0)))
if [ $LEFT -gt 30 ]; then
  { hdr "python -m pytest -q -m gpu tests/ (timeout ${LEFT} s)"; PYTHONPATH=$PWD timeout $LEFT python -m pytest -q -m gpu tests/ 2>&1 | tail -15; } > $OUT/gpu-tests-all.log 2>&1
  tail -2 $OUT/gpu-tests-all.log
fi
