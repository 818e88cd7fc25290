#!/usr/bin/env bash
# Calls on nvidia-h200-x2 (two H200s of one host), trees built on the
# development machine for the device's Python and carried in
# .trees/try.tar.xz (scripts/device-trees.sh).
#   PART=sweeps: astaroth bench --sweeps --physics all (32, 64, 256) of
#     trees A and B at once, one on each GPU, then swapped, in both
#     precisions: each row of A and B from both GPUs, A/B from the same call.
#   PART=split: tree S's split GPU tests (two ranks, one GPU each); then
#     split_run_parts.py (../2026-11-29-gpu-x2-main) on two GPUs, MHD+entropy
#     at 256^3 a rank float32, unforced and forced, trees B and S
#     alternating, in three rounds.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
A=${A:-main} B=${B:-head} S=${S:-sso}
device_start $B
case "${PART:-sweeps}" in
sweeps)
    sweeps_ab $A $B
    for f in "$OUT"/sweeps-*.log; do echo "== $(basename $f)"; grep -v "^# \(device\|date\|command\)" "$f"; done
    ;;
split)
    PARTS_PY=$PWD/benchmarks/results/2026-11-29-gpu-x2-main/split_run_parts.py
    MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none"
    TAIL=25 in_tree $S split-tests-$S.log 300 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -1 "$OUT/split-tests-$S.log"
    for round in 1 2 3; do
        for args in "mhd+entropy" "mhd+entropy forced"; do
            for t in $B $S; do
                in_tree $t parts.log 150 $MPI -np 2 python3 $PARTS_PY 256 float32 $args
            done
        done
    done
    grep -E "^# commit|^split" "$OUT/parts.log"
    ;;
esac
