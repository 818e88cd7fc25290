#!/usr/bin/env bash
# Calls on nvidia-h200-x2 (two H200s of one host), trees built on the
# development machine for the device's Python and carried in
# .trees/try.tar.xz (scripts/device-trees.sh).
#   PART=first: tree M's split GPU tests (tests/test_mpi_gpu.py, two ranks,
#     one GPU each); then at once tree P's one-GPU suite (-m gpu) on GPU 1
#     and signal_pieces.py speed and run (256^3) on GPU 0.
#   PART=variants: signal_pieces.py 256 in tree P on GPU 0, and at once
#     its MHD rows in the plain order (ASTAROTH_PLAIN_ORDER=1) on GPU 1; then
#     tree P's split GPU tests.
#   PART=final1: the sweeps (below) of trees A and B, then the MHD float32
#     reduction of each under Nsight Compute (reduce_once.py, --set full).
#   PART=final2: tree B's split GPU tests, then at once its one-GPU suite on
#     GPU 1 and tree X's (a mutant) reduction tests on GPU 0.
#   PART=sweeps: astaroth bench --sweeps --physics all (32, 64, 256) of
#     trees A and B at once, one on each GPU, then swapped, in both
#     precisions.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HERE=$PWD/benchmarks/results/2026-11-29-gpu-signal-pieces
M=${M:-main} P=${P:-pc1} A=${A:-main} B=${B:-pc1}
device_start $P
case "${PART:-first}" in
first)
    TAIL=25 in_tree $M split-tests-$M.log 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -1 "$OUT/split-tests-$M.log"
    TAIL=40 in_tree $P gpu-tests-$P.log 560 env CUDA_VISIBLE_DEVICES=1 \
        python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests &
    TAIL=100 in_tree $P speed-$P.log 200 env CUDA_VISIBLE_DEVICES=0 python3 $HERE/signal_pieces.py speed 256
    cat "$OUT/speed-$P.log"
    TAIL=100 in_tree $P run-$P.log 200 env CUDA_VISIBLE_DEVICES=0 python3 $HERE/signal_pieces.py run 256
    cat "$OUT/run-$P.log"
    wait
    tail -3 "$OUT/gpu-tests-$P.log"
    ;;
variants)
    TAIL=200 in_tree $P variants-$P.log 420 env CUDA_VISIBLE_DEVICES=0 python3 $HERE/signal_pieces.py 256 &
    TAIL=200 in_tree $P variants-plain-$P.log 420 env CUDA_VISIBLE_DEVICES=1 ASTAROTH_PLAIN_ORDER=1 \
        python3 $HERE/signal_pieces.py 256 mhd
    wait
    grep -v Warn "$OUT/variants-$P.log" "$OUT/variants-plain-$P.log" | grep -v _warn_once
    TAIL=25 in_tree $P split-tests-$P.log 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -1 "$OUT/split-tests-$P.log"
    ;;
final1)
    PART=sweeps A=$A B=$B bash "$0"
    for t in $A $B; do
        ncu_report $t ncu-reduce-$t signal_ 3 python $HERE/reduce_once.py 256 float32 mhd
    done
    ;;
final2)
    TAIL=25 in_tree $B split-tests-$B.log 240 python3 -m pytest -q -rs -p no:cacheprovider tests/test_mpi_gpu.py
    tail -1 "$OUT/split-tests-$B.log"
    TAIL=40 in_tree $B gpu-tests-$B.log 560 env CUDA_VISIBLE_DEVICES=1 \
        python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests &
    TAIL=30 in_tree ${X:-mut} mutant-tests.log 200 env CUDA_VISIBLE_DEVICES=0 \
        python3 -m pytest -q -p no:cacheprovider tests/test_cfl_reduction_gpu.py
    cat "$OUT/mutant-tests.log"
    wait
    tail -3 "$OUT/gpu-tests-$B.log"
    ;;
sweeps)
    sweeps_ab $A $B
    for dtype in ${DTYPES:-float32 float64}; do  # one log a precision
        cat "$OUT"/sweeps-$dtype-*-gpu*.log > "$OUT/sweeps-$dtype.log" && rm "$OUT"/sweeps-$dtype-*-gpu*.log
    done
    grep -v "^# \(device\|date\|command\)" "$OUT"/sweeps-*.log
    ;;
esac
