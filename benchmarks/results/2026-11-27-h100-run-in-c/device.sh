#!/usr/bin/env bash
# The device calls for the run loop in C (Grid.run_steps): this tree (B)
# against 74dd058 (A, .trees/base-tree built in /tmp/base).  Logs to $OUT.
#   build:  both builds (../2026-11-27-h100-terms/device.sh build: every GPU test of B)
#   rates:  sweep_rates.py in A and B, one after the other, per physics
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
HERE=benchmarks/results/2026-11-27-h100-run-in-c
case "$1" in
build) OUT=$OUT bash benchmarks/results/2026-11-27-h100-terms/device.sh build ;;
rates)
    shift
    for physics in "$@"; do
        for tree in /tmp/base "$ROOT"; do
            { echo "# device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | head -1)"
              echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
              echo "# commit: A = 74dd058 (/tmp/base), B = ${COMMIT:-unknown} ($ROOT); this run: $tree"
              echo "# command: python3 $HERE/sweep_rates.py $physics"
              (cd "$tree" && PYTHONPATH=$tree timeout 200 python3 "$ROOT/$HERE/sweep_rates.py" "$physics" 2>&1); } >> "$OUT/sweep-rates.log" 2>&1
        done
    done
    grep -v "^# d\|^# c" "$OUT/sweep-rates.log" ;;
final)
    # B alone, then A (side by side, B's build has twice left no module), every GPU test of B, rates.py in A and B
    rm -rf /tmp/base && cp -r .trees/base-tree /tmp/base
    { echo "# date: $(date -u)"; echo "# commit: B = ${COMMIT:-unknown}"; echo "# command: python3 setup.py build_ext --inplace (B, then A in /tmp/base)"
      python3 setup.py build_ext --inplace 2>&1 | grep -E "error|ptxas info.*signal_reduce" -A1 | head -40
      (cd /tmp/base && python3 setup.py build_ext --inplace > /tmp/base-build.log 2>&1)
      ls -l astaroth/_core*.so /tmp/base/astaroth/_core*.so; } > "$OUT/build.log" 2>&1
    { echo "# device: $(nvidia-smi --query-gpu=name --format=csv,noheader)"; echo "# date: $(date -u)"; echo "# commit: ${COMMIT:-unknown}"; echo "# command: pytest -q -m gpu"
      PYTHONPATH=$ROOT timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider 2>&1 | tail -8; } > "$OUT/gpu-tests.log" 2>&1
    for tree in /tmp/base "$ROOT"; do
        { echo "# device: $(nvidia-smi --query-gpu=name --format=csv,noheader)"; echo "# date: $(date -u)"
          echo "# commit: A = 74dd058 (/tmp/base), B = ${COMMIT:-unknown}; this run: $tree"
          echo "# command: python3 benchmarks/results/2026-11-27-h100-terms/rates.py"
          (cd "$tree" && PYTHONPATH=$tree timeout 100 python3 "$ROOT/benchmarks/results/2026-11-27-h100-terms/rates.py" 2>&1); } >> "$OUT/rates.log" 2>&1
    done
    tail -3 "$OUT/gpu-tests.log"; grep -v "^# d\|^# c" "$OUT/rates.log" ;;
esac
