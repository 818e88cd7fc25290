#!/usr/bin/env bash
# One call on nvidia-h200-x2: the forcing kernel after a step reading four
# planes of the velocity at a time (tree F) against main (tree H); trees
# built on the development machine for the device's Python and carried in
# .trees/try.tar.xz (scripts/device-trees.sh).
#   GPU 1: F's one-GPU suite, while GPU 0 times the forced steps' kernels
#   (forced_kernel_times.py) of H and F in turn, two rounds;
#   then (alone with SWEEPS_ONLY=1) astaroth bench --sweeps --physics all of H and F at once, one on
#   each GPU, then swapped, in both precisions.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
H=${H:-head} F=${F:-frc}
HERE=$PWD/benchmarks/results/2026-11-29-gpu-forcing-registers
device_start $F
if [ -z "${SWEEPS_ONLY:-}" ]; then
TAIL=6 in_tree $F gpu-tests-$F.log 400 env CUDA_VISIBLE_DEVICES=1 python3 -m pytest -q -m gpu -rs -p no:cacheprovider \
    -x tests &
for round in 1 2; do
    for t in $H $F; do
        TAIL=40 in_tree $t kernel-times.log 120 env CUDA_VISIBLE_DEVICES=0 python3 $HERE/forced_kernel_times.py 256 \
            mhd:float32 mhd:float64 mhd+entropy:float32 mhd+entropy:float64
    done
done
wait
tail -3 "$OUT/gpu-tests-$F.log"
grep -E "^# commit|^# mhd|forcing" "$OUT/kernel-times.log"
fi
for dtype in ${DTYPES:-float32 float64}; do
    for order in "$H $F" "$F $H"; do
        set -- $order
        for gpu in 0 1; do
            t=$([ $gpu = 0 ] && echo $1 || echo $2)
            TAIL=30 in_tree $t sweeps-$dtype-$t-gpu$gpu.log 280 env CUDA_VISIBLE_DEVICES=$gpu python3 -m astaroth \
                bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p &
        done
        wait
    done
done
for f in "$OUT"/sweeps-*.log; do echo "== $(basename $f)"; grep -E "^(physics|mhd|hydro)" "$f"; done
