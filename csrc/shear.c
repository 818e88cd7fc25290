/*
 * shear.c -- the shearing box's deltay after a substep (terms/shear.h's
 * shear_advance), compiled once with the C flags for every caller: the CPU
 * backend's steps, the CUDA backend's and the binding's (a split grid's
 * substeps).  The CUDA backend's host code goes through nvcc's host
 * compiler with other flags, under which the same lines round otherwise
 * (with -march=native GCC contracts them into FMAs), so that its deltay
 * would leave the CPU's in the last bits.
 */
#include "reach.h"

void ac_shear_advance(ac_shear_boundary *b, double shear, int s, double dt)
{
    shear_advance(b, shear, s, dt);
}
