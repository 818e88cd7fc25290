#!/usr/bin/env bash
# notebooks/dynamo_onset.ipynb at its GPU size (scripts/notebook_gpu.sh):
# 32^3 (the Pencil Code sample's), 8 values of eta x 4 seeds to t = 400;
# ASTAROTH_ONSET_N=64 for 64^3.  Needs numpy, pandas and matplotlib.
#   usage: scripts/dynamo_onset_gpu.sh [OUT_DIR]   (default: $OUT, else ./device-logs)
exec "$(dirname "$0")/notebook_gpu.sh" dynamo_onset "$@"
