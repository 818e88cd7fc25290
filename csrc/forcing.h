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
 * applied by the backends through forcing_axis_phase, forcing_phase_at and
 * forcing_increment below (plain C99, usable in CUDA device code).
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

/* exp(i theta) as its cosine and sine. */
typedef struct {
    double c, s;
} ac_forcing_phase;

/* The factor of axis a of exp(i (k.x + phase)) at coordinate x: exp(i k_a x),
 * the term's phase with z's.  The product of the three (forcing_phase_at) is
 * a point's: one complex product a point in place of a cosine and a sine of
 * k.x + phase, and more accurate (that sum's rounding grows with |k.x|); the
 * Pencil Code's forcing.f90 builds its fx, fy, fz the same way. */
AC_FORCING_INLINE ac_forcing_phase forcing_axis_phase(const ac_forcing_term *t, int a, double x)
{
    const double theta = a == 2 ? t->k[2] * x + t->phase : t->k[a] * x;
    const ac_forcing_phase f = {cos(theta), sin(theta)};
    return f;
}

/* exp(i (k.x + phase)) from the factors of x, y and z (forcing_axis_phase). */
AC_FORCING_INLINE ac_forcing_phase forcing_phase_at(ac_forcing_phase x, ac_forcing_phase y, ac_forcing_phase z)
{
    const ac_forcing_phase yz = {y.c * z.c - y.s * z.s, y.s * z.c + y.c * z.s};
    const ac_forcing_phase f = {x.c * yz.c - x.s * yz.s, x.s * yz.c + x.c * yz.s};
    return f;
}

/* The cosine part of a point's increment, dt amplitude cos(k.x + phase),
 * from its exp(i (k.x + phase)). */
AC_FORCING_INLINE void forcing_increment(const ac_forcing_term *t, ac_forcing_phase f, double dt, double du[3])
{
    const double c = f.c * dt;
    du[0] = t->amplitude[0] * c;
    du[1] = t->amplitude[1] * c;
    du[2] = t->amplitude[2] * c;
}

/* Whether the term has a sine part (relhel != 0). */
AC_FORCING_INLINE int forcing_is_helical(const ac_forcing_term *t)
{
    return t->sine_amplitude[0] != 0.0 || t->sine_amplitude[1] != 0.0 || t->sine_amplitude[2] != 0.0;
}

/* The sine part, -dt sine_amplitude sin(k.x + phase), added where
 * forcing_is_helical: a separate pass (the sum rounded to real twice), so
 * that non-helical runs keep the arithmetic they had before helicity
 * existed. */
AC_FORCING_INLINE void forcing_sine_increment(const ac_forcing_term *t, ac_forcing_phase f, double dt, double du[3])
{
    const double s = f.s * dt;
    du[0] = -t->sine_amplitude[0] * s;
    du[1] = -t->sine_amplitude[1] * s;
    du[2] = -t->sine_amplitude[2] * s;
}

#endif
