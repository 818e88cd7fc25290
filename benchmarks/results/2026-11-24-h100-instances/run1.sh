#!/usr/bin/env bash
# Device call 1 (repository root): build this tree alone (timed, nvcc on every core), then the base
# 8a8e381 (.trees/base-tree) and the schedule variants (variants.py) side by side; the build's
# streaming-kernel instances; the CUDA bit-for-bit fixture; every GPU test.  Logs to $OUT.
set -u
ROOT=$PWD
R=benchmarks/results/2026-11-24-h100-instances
COMMIT=${COMMIT:-unknown}
hdr() { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"; echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"; echo "# commit: $1"; echo "# command: $2"; }
build() {  # tree, log: build in place, report seconds and the streaming-kernel entries
    ( cd "$1" && s=$SECONDS && python setup.py build_ext --inplace > "$2.full" 2>&1; echo "exit $? build seconds $((SECONDS - s))";
      echo "streaming-kernel entries: $(grep -c "Compiling entry function '_Z2[0-9]stream_substep_kernel" "$2.full")";
      echo "all kernel entries: $(grep -c "Compiling entry function" "$2.full")";
      grep -E "bytes stack frame" "$2.full" | sort | uniq -c | sort -rn | head -4 )
}
{ hdr $COMMIT "python setup.py build_ext --inplace (alone, 16 cores)"; build $ROOT $OUT/build-new.log; } > $OUT/build-new.log 2>&1
grep -E "exit|entries" $OUT/build-new.log
python $R/variants.py > /dev/null
{ hdr 8a8e381 "python setup.py build_ext --inplace (beside variants C D E)"; build $ROOT/.trees/base-tree $OUT/build-base.log; } > $OUT/build-base.log 2>&1 &
for v in C D E; do
    { hdr "$COMMIT + variant $v (variants.py)" "python setup.py build_ext --inplace (beside the others)"; build $ROOT/build/variants/$v $OUT/build-$v.log; } > $OUT/build-$v.log 2>&1 &
done
wait
grep -HE "exit|streaming" $OUT/build-*.log
rm -f $OUT/*.full
{ hdr $COMMIT "python scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz"; PYTHONPATH=$ROOT timeout 100 python scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz 2>&1 | tail -5; } > $OUT/bitwise.log 2>&1
tail -1 $OUT/bitwise.log
{ hdr $COMMIT "python -m pytest -q -m gpu tests/"; PYTHONPATH=$ROOT timeout 200 python -m pytest -q -m gpu tests/ 2>&1 | grep -v excepthook | tail -15; } > $OUT/tests-gpu.log 2>&1
tail -2 $OUT/tests-gpu.log
