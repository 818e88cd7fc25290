#!/usr/bin/env bash
# One call: the deferred order for MHD with the entropy module in single
# precision (tree NEW) against main (MAIN), both prebuilt for the device's
# Python in .trees/try.tar.xz (scripts/device-trees.sh): NEW's one-GPU
# suite (the list of ../2026-11-29-gpu-deferred-order/device.sh), sim.run
# against the fixed-dt step of every physics in float32 at 256^3
# (run_rates.py) of MAIN and NEW, and NEW's GPU time of each kernel of an
# MHD+entropy float32 step in the deferred and in the plain order.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
ORDER=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order
MAIN=${MAIN:-main35} NEW=${NEW:-defent}
MAIN=$MAIN NEW=$NEW PARTS=tests bash $ORDER/device.sh
tail -1 "$OUT/gpu-tests-$NEW.log"
for t in $MAIN $NEW; do
    TAIL=8 in_tree $t run-rates.log 120 python $PROFILE/run_rates.py 256 float32
done
for order in 0 1; do
    TAIL=10 in_tree $NEW kernel-times.log 60 env ASTAROTH_PLAIN_ORDER=$order python $ORDER/kernel_times.py 256 mhd+entropy:float32
done
