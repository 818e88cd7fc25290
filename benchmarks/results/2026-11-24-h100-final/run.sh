#!/usr/bin/env bash
# The session's last device call (run from the repository root): build this tree and the base
# 8a8e381 in parallel; the CUDA bit-for-bit fixture; every GPU test; the interleaved A/B of
# `--terms --physics all` plus plain 55p/19p at 256^3 against 8a8e381; the entropy rows.
set -u
ROOT=$PWD
COMMIT=${COMMIT:-unknown}
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "# commit: $1"; echo "# command: $2"; }
( cd .trees/base-tree && { hdr 8a8e381 "python setup.py build_ext --inplace (two trees at once)"; s=$SECONDS; python setup.py build_ext --inplace > build-full.log 2>&1; echo "exit $? build seconds $((SECONDS - s))"; grep -E "ptxas info    : Used|bytes stack" build-full.log | sort | uniq -c | sort -rn | head -5; } > $OUT/build-base.log 2>&1 ) &
( { hdr $COMMIT "python setup.py build_ext --inplace (two trees at once)"; s=$SECONDS; python setup.py build_ext --inplace > $OUT/build-full-new.log 2>&1; echo "exit $? build seconds $((SECONDS - s))"; grep -c "Compiling entry function '_Z25stream_substep_kernel" $OUT/build-full-new.log; } > $OUT/build-new.log 2>&1 ) &
wait
grep -h "build seconds" $OUT/build-*.log
rm -f $OUT/build-full-new.log
{ hdr $COMMIT "python scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"; PYTHONPATH=$ROOT timeout 100 python scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -5; } > $OUT/bitwise.log 2>&1
tail -1 $OUT/bitwise.log
{ hdr $COMMIT "python -m pytest -q -m gpu tests/"; PYTHONPATH=$ROOT timeout 170 python -m pytest -q -m gpu tests/ 2>&1 | tail -15; } > $OUT/tests-gpu.log 2>&1
tail -2 $OUT/tests-gpu.log
{ hdr "A = base-tree 8a8e381, B = this tree $COMMIT" "python ab.py 3 base-tree ."; timeout 150 python benchmarks/results/2026-11-24-h100-5a9c7d4/ab.py 3 $ROOT/.trees/base-tree $ROOT 2>&1; } > $OUT/ab-bench.log
tail -16 $OUT/ab-bench.log
{ hdr $COMMIT "python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256"; PYTHONPATH=$ROOT timeout 90 python -m astaroth bench --backend cuda --energy entropy --physics all --sizes 256 2>&1 | tail -12; } > $OUT/bench-entropy.log 2>&1
cat $OUT/bench-entropy.log | tail -10
