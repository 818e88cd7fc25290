#!/usr/bin/env bash
# notebooks/mri.ipynb at its GPU size (scripts/notebook_gpu.sh): a
# 128 x 512 x 128 Keplerian shearing box in single precision to t = 150, or
# until ASTAROTH_MRI_WALL seconds of wall-clock time (default 3000) have
# passed.
#   usage: scripts/mri_gpu.sh [OUT_DIR]   (default: $OUT, else ./device-logs)
exec "$(dirname "$0")/notebook_gpu.sh" mri "$@"
