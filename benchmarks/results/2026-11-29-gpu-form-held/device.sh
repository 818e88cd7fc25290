#!/usr/bin/env bash
# Device calls for the deferred order's second substep forming f1 in
# registers (csrc/cuda/stream_substep.cuh: forms_in_registers), from the
# repository root: the parts of ../2026-11-29-gpu-deferred-order/device.sh
# (tests, rates, sweeps, kernels, ncu, bench; its header says what each
# runs) with MAIN the tree before and NEW the change, both prebuilt for the
# device's Python in .trees/try.tar.xz (scripts/device-trees.sh).
set -uo pipefail
cd "$(dirname "$0")/../../.."
MAIN=${MAIN:-main35} NEW=${NEW:-held} exec bash benchmarks/results/2026-11-29-gpu-deferred-order/device.sh
