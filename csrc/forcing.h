/*
 * forcing.h -- the random forcing of seed Sect. 6, eqs. (24)-(25), drawn
 * once per time step on the host from a seeded generator, so that a seed
 * gives the same sequence on every backend and any number of processes.
 * The per-point increment it defines is applied by the backends through
 * forcing_increment() below (plain C99, usable in CUDA device code).
 */
#ifndef ASTAROTH_FORCING_H
#define ASTAROTH_FORCING_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define AC_FORCING_INLINE static inline __host__ __device__
#else
#define AC_FORCING_INLINE static inline
#endif

/* One step's forcing: u += dt * amplitude * cos(k.x + phase). */
typedef struct {
    double k[3];         /* wave vector, physical units (2 pi n / L per axis) */
    double amplitude[3]; /* N f_k of eq. (25) */
    double phase;
} ac_forcing_term;

/* The set of wave vectors, strength and generator state. */
typedef struct {
    int count;
    double *k;       /* count x 3, physical units */
    double f0, cs;   /* eq. (25) */
    uint64_t state;  /* splitmix64 state: the whole generator */
} ac_forcing;

/* Draws the next step's k, phase and unit vector e and returns the term
 * for a step of length dt; advances the generator. */
void ac_forcing_draw(ac_forcing *forcing, double dt, ac_forcing_term *term);

/* The velocity increment at position (x, y, z) for a step dt. */
AC_FORCING_INLINE void forcing_increment(const ac_forcing_term *t, double x, double y, double z, double dt,
                                         double du[3])
{
    const double c = cos(t->k[0] * x + t->k[1] * y + t->k[2] * z + t->phase) * dt;
    du[0] = t->amplitude[0] * c;
    du[1] = t->amplitude[1] * c;
    du[2] = t->amplitude[2] * c;
}

#endif
