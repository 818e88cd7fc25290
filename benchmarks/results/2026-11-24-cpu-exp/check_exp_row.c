/* Bit-for-bit check of exp-row.patch's ac_exp_minus_row_f64/f32 against the
 * C library's exp/expf: random rows (double) and every float of |x| in
 * [2^-30, 89] (float).  gcc -O3 -march=native -ffp-contract=fast
 * -fno-math-errno -I<tree>/csrc/cpu check_exp_row.c <tree>/csrc/cpu/exp_row.c -lm */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exp_row.h"
static uint64_t state = 88172645463325252ull;
static uint64_t next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static double uniform(void) { return (next() >> 11) * 0x1p-53 * 2 - 1; }
int main(int argc, char **argv)
{
    const long rows = argc > 1 ? atol(argv[1]) : 1000000;
    long bad = 0, unsettled = 0, total = 0;
    double x[64], y[64];
    for (long r = 0; r < rows; ++r) {
        const int mode = r % 4; /* lnrho-like, O(1), the whole range, tiny */
        for (int i = 0; i < 64; ++i)
            x[i] = mode == 0 ? 1e-2 * uniform() : mode == 1 ? 3 * uniform() : mode == 2 ? 720 * uniform()
                                                                           : ldexp(uniform(), -(int)(next() % 60));
        ac_exp_minus_row_f64(x, y, 64);
        for (int i = 0; i < 64; ++i, ++total) {
            const double want = exp(-x[i]);
            bad += memcmp(&want, &y[i], sizeof want) != 0;
        }
    }
    printf("double: %ld values, %ld differ from exp\n", total, bad);
    long fbad = 0, ftotal = 0;
    uint32_t lo, hi;
    const float a = 0x1p-30f, b = 89.0f;
    memcpy(&lo, &a, 4);
    memcpy(&hi, &b, 4);
    float fx[64], fy[64];
    for (int sign = 0; sign < 2; ++sign)
        for (uint32_t u = lo; u < hi; u += 64) {
            int n = 0;
            for (; n < 64 && u + n < hi; ++n) {
                const uint32_t v = (u + n) | (sign ? 0x80000000u : 0u);
                memcpy(&fx[n], &v, 4);
            }
            ac_exp_minus_row_f32(fx, fy, n);
            for (int i = 0; i < n; ++i, ++ftotal) {
                const float want = expf(-fx[i]);
                fbad += memcmp(&want, &fy[i], sizeof want) != 0;
            }
        }
    printf("float: %ld values (every float of |x| in [2^-30, 89]), %ld differ from expf\n", ftotal, fbad);
    (void)unsettled;
    return bad || fbad;
}
