/*
 * forcing.c -- the host side of the forcing: a splitmix64 generator
 * (Steele, Lea & Flood 2014) and the draw of eqs. (24)-(25).
 */
#include "forcing.h"

#include <math.h>

static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 random bits */
static double next_uniform(uint64_t *state)
{
    return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

void ac_forcing_sample_next(ac_forcing *forcing, ac_forcing_sample *draw)
{
    const double two_pi = 6.283185307179586476925286766559;
    int which = (int)(next_uniform(&forcing->state) * forcing->count);
    if (which >= forcing->count)
        which = forcing->count - 1;
    const double *k = forcing->k + 3 * which;
    const double k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
    draw->phase = two_pi * next_uniform(&forcing->state);
    /* a random unit vector e, drawn again while nearly parallel to k */
    double cross[3], norm2;
    do {
        const double cos_theta = 2.0 * next_uniform(&forcing->state) - 1.0;
        const double phi = two_pi * next_uniform(&forcing->state);
        const double sin_theta = sqrt(1.0 - cos_theta * cos_theta);
        const double e[3] = {sin_theta * cos(phi), sin_theta * sin(phi), cos_theta};
        cross[0] = k[1] * e[2] - k[2] * e[1];
        cross[1] = k[2] * e[0] - k[0] * e[2];
        cross[2] = k[0] * e[1] - k[1] * e[0];
        norm2 = cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]; /* |k|^2 - (k.e)^2 */
    } while (norm2 < 1e-6 * k2);
    /* eq. (25) for N = 1: f_k = k x e / |k x e| (unit length); N's |k| the drawn vector's,
     * or with kav > 0 that mean |k| of the set for every vector (the Pencil Code's
     * forcing_hel normalisation);
     * helical (Brandenburg 2001): (f_k + i relhel khat x f_k) / sqrt(1 + relhel^2) */
    draw->knorm = forcing->kav > 0.0 ? forcing->kav : sqrt(k2);
    const double sigma = forcing->relhel, norm = sqrt(1.0 + sigma * sigma), kk = sqrt(k2);
    double f[3];
    for (int a = 0; a < 3; ++a) {
        draw->k[a] = k[a];
        f[a] = cross[a] / sqrt(norm2);
        draw->unit[a] = f[a] / norm; /* exact for relhel = 0 */
    }
    const double khat_cross_f[3] = {(k[1] * f[2] - k[2] * f[1]) / kk, (k[2] * f[0] - k[0] * f[2]) / kk,
                                    (k[0] * f[1] - k[1] * f[0]) / kk};
    for (int a = 0; a < 3; ++a)
        draw->sine_unit[a] = sigma == 0.0 ? 0.0 : sigma * khat_cross_f[a] / norm;
}

void ac_forcing_draw(ac_forcing *forcing, double cs, double dt, ac_forcing_term *term)
{
    ac_forcing_sample draw;
    ac_forcing_sample_next(forcing, &draw);
    ac_forcing_term_of(&draw, forcing->f0, cs, dt, term);
}
