# How the Pencil Code run directories of compare.sh were made (serial,
# double precision: src/Makefile.local MPICOMM=nompicomm, REAL_PRECISION=double;
# Pencil Code at /tmp/pc, commit 0b184bce, GNU Fortran 12.2).
# In this version pc_build's --optimal takes effect only beside a compiler
# option (--gnu, --intel, --cray); --gnu --optimal reads
# config/compilers/GNU-GCC_MPI.conf (mpif90, a wrapper of gfortran; MPICOMM
# stays nompicomm) and config/compilers/extensions/GNU-GCC_optimal.conf:
# FFLAGS=-O -O3 -march=native.  The AVX2 builds add avx2.conf (-mno-avx512f).
# usage: bash build.sh RUNS  (RUNS/<physics>64 and RUNS/avx2/<physics>64 hold
# a copy of pencil/<physics>64 of this folder and empty data/proc0, data/allprocs)
set -e
conf=$(cd "$(dirname "$0")" && pwd)/avx2.conf
export PENCIL_HOME=/tmp/pc; . $PENCIL_HOME/sourceme.sh
for d in hydro64 mhd64 entropy64 mhdentropy64; do
  (cd "$1/$d" && pc_setupsrc && pc_build --gnu --optimal -j2 > build.log 2>&1 && ./src/start.x > start.log 2>&1)
  (cd "$1/avx2/$d" && pc_setupsrc && pc_build -f GNU-GCC_MPI,GNU-GCC_optimal,$conf -j2 > build.log 2>&1 &&
   ./src/start.x > start.log 2>&1)
done
