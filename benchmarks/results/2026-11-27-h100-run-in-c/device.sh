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
esac
