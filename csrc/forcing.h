/*
 * forcing.h -- the random forcing of seed Sect. 6, eqs. (24)-(25), made
 * helical by relhel (docs/guide/mhd.md, Brandenburg 2001), drawn
 * once per time step on the host from a seeded generator, so that a seed
 * gives the same sequence on every backend and any number of processes.
 * A draw is in two parts: its random part (ac_forcing_sample_next: the wave
 * vector, phase and direction, which do not depend on the step) and its
 * strength for the step's dt (ac_forcing_term_of: products, a quotient and
 * a square root, so that the host and a device that knows dt only on the
 * device give the same bits).  The per-point increment it defines is
 * applied by the backends through forcing_increment() below (plain C99,
 * usable in CUDA device code).
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

/* One step's forcing: u += dt Re{(amplitude + i sine_amplitude) exp(i (k.x + phase))}
 *                      = dt (amplitude cos(k.x + phase) - sine_amplitude sin(k.x + phase)). */
typedef struct {
    double k[3];              /* wave vector, physical units (2 pi n / L per axis) */
    double amplitude[3];      /* N f_k of eq. (25), over sqrt(1 + relhel^2) */
    double sine_amplitude[3]; /* N relhel (khat x f_k) / sqrt(1 + relhel^2): zero without helicity */
    double phase;
} ac_forcing_term;

/* The set of wave vectors, strength and generator state. */
typedef struct {
    int count;
    double *k;       /* count x 3, physical units */
    double f0;       /* eq. (25); its cs is the grid's (ac_forcing_draw's argument) */
    double relhel;   /* helicity: curl f = relhel |k| f for relhel = +-1; 0 is eq. (25) as it stands */
    double kav;      /* > 0: the |k| of every step's N (the Pencil Code's mean |k| of the set); 0: the drawn |k| */
    uint64_t state;  /* splitmix64 state: the whole generator */
} ac_forcing;

/* The random part of one step's forcing: its term is this for N = 1
 * (eq. 25), scaled by N. */
typedef struct {
    double k[3];          /* wave vector, physical units */
    double unit[3];       /* f_k / sqrt(1 + relhel^2): the cosine part for N = 1 */
    double sine_unit[3];  /* relhel (khat x f_k) / sqrt(1 + relhel^2): the sine part for N = 1 */
    double phase;
    double knorm;         /* the |k| of N: the drawn vector's, or kav */
} ac_forcing_sample;

/* Draws the next step's k, phase and unit vector e; advances the
 * generator. */
void ac_forcing_sample_next(ac_forcing *forcing, ac_forcing_sample *draw);

/* The term of a draw for a step of length dt: eq. (25)'s
 * N = f0 cs sqrt(|k| cs / dt) times the draw's unit parts. */
AC_FORCING_INLINE void ac_forcing_term_of(const ac_forcing_sample *d, double f0, double cs, double dt,
                                          ac_forcing_term *term)
{
    const double n = f0 * cs * sqrt(d->knorm * cs / dt);
    for (int a = 0; a < 3; ++a) {
        term->k[a] = d->k[a];
        term->amplitude[a] = n * d->unit[a];
        term->sine_amplitude[a] = n * d->sine_unit[a];
    }
    term->phase = d->phase;
}

/* Draws the next step's term for a step of length dt, with the grid's
 * sound speed cs; advances the generator. */
void ac_forcing_draw(ac_forcing *forcing, double cs, double dt, ac_forcing_term *term);

/* The velocity increment at position (x, y, z) for a step dt: the cosine
 * part, all of it without helicity. */
AC_FORCING_INLINE void forcing_increment(const ac_forcing_term *t, double x, double y, double z, double dt,
                                         double du[3])
{
    const double c = cos(t->k[0] * x + t->k[1] * y + t->k[2] * z + t->phase) * dt;
    du[0] = t->amplitude[0] * c;
    du[1] = t->amplitude[1] * c;
    du[2] = t->amplitude[2] * c;
}

/* Whether the term has a sine part (relhel != 0). */
AC_FORCING_INLINE int forcing_is_helical(const ac_forcing_term *t)
{
    return t->sine_amplitude[0] != 0.0 || t->sine_amplitude[1] != 0.0 || t->sine_amplitude[2] != 0.0;
}

/* The sine part of the increment, added where forcing_is_helical: a
 * separate pass, so that non-helical runs keep the arithmetic (and the
 * compiled loop) they had before helicity existed. */
AC_FORCING_INLINE void forcing_sine_increment(const ac_forcing_term *t, double x, double y, double z, double dt,
                                              double du[3])
{
    const double s = sin(t->k[0] * x + t->k[1] * y + t->k[2] * z + t->phase) * dt;
    du[0] = -t->sine_amplitude[0] * s;
    du[1] = -t->sine_amplitude[1] * s;
    du[2] = -t->sine_amplitude[2] * s;
}

#endif
