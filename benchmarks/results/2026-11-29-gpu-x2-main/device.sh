#!/usr/bin/env bash
# Calls on nvidia-h200-x2 (two H200s of one host) at main, the extension
# built on the development machine for the device's Python and carried
# (PREBUILT=1), so that no call compiles.  Logs to $OUT.
#   PART=1: the time-series row's GPU tests on one GPU; then
#           scripts/device-check.sh many's split GPU tests, the bit-for-bit
#           check by each exchange, a split run's steps in C against those
#           sequenced from Python, and sim.run's CFL steps on 1 and 2 GPUs
#   PART=2: weak (256^3 a GPU) and strong (512^3, 1024^3) scaling on 1 and 2 GPUs
#   PART=3: split_run_parts.py (hydro, MHD+entropy, float32, 256^3 a GPU) on 1 and 2 GPUs
set -uo pipefail
cd "$(dirname "$0")/../../.."
export OUT=${OUT:-device-logs} PREBUILT=1 PYTHONPATH=$PWD PYTHONUNBUFFERED=1
mkdir -p "$OUT"
case "${PART:-1}" in
1)
    {
        echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1) (CUDA_VISIBLE_DEVICES=0)"
        echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
        echo "# commit: ${COMMIT:-unknown}"
        echo "# command: python3 -m pytest -q -m gpu -rs tests/test_timeseries_reduction.py"
        CUDA_VISIBLE_DEVICES=0 timeout 120 python3 -m pytest -q -m gpu -rs -p no:cacheprovider tests/test_timeseries_reduction.py 2>&1 | tail -5
    } > "$OUT/timeseries-tests.log" 2>&1
    tail -1 "$OUT/timeseries-tests.log"
    MANY_STAGES="tests check csteps run" scripts/device-check.sh many
    ;;
2)
    MANY_STAGES="weak strong" scripts/device-check.sh many
    ;;
3)
    here=benchmarks/results/2026-11-29-gpu-x2-main
    mpi="mpirun --allow-run-as-root --oversubscribe --bind-to none"
    for physics in hydro mhd+entropy; do
        for ranks in 1 2; do
            {
                echo "# device: $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
                echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
                echo "# commit: ${COMMIT:-unknown}"
                echo "# command: $mpi -np $ranks python3 $here/split_run_parts.py 256 float32 $physics"
                timeout 150 $mpi -np $ranks python3 $here/split_run_parts.py 256 float32 $physics 2>&1 | tail -3
            } >> "$OUT/split-run-parts.log" 2>&1
        done
    done
    grep -v "^#" "$OUT/split-run-parts.log"
    ;;
esac
