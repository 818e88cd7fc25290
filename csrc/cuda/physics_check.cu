/*
 * physics_check.cu -- proves that csrc/physics.h compiles as CUDA device
 * code: one kernel runs the whole per-point update (55-point right-hand side
 * and an RK3 substep) in single precision.  Built by .ci/run with nvcc
 * (compile only).
 */
#define real float
#include "../physics.h"
#undef real

__global__ void physics_check_f32(const float *lnrho, const float *ux, const float *uy, const float *uz,
                                  float *out, float *w, ptrdiff_t sy, ptrdiff_t sz)
{
    const ptrdiff_t idx = 3 + 3 * sy + 3 * sz + threadIdx.x;
    const ptrdiff_t stride[3] = {1, sy, sz};
    const ac_point_params p = {{1.0f, 1.0f, 1.0f}, 0.01f, 1.0f};
    ac_point_fields f;
    f.lnrho = lnrho + idx;
    f.u[0] = ux + idx;
    f.u[1] = uy + idx;
    f.u[2] = uz + idx;
    ac_derivatives d;
    axis_derivatives(f, stride, &p, &d);
    for (int i = 0; i < 3; ++i)
        d.grad_div_u[i] = grad_div_55p(f, stride, &p, i);
    float rhs[4];
    rhs_from_derivatives(&d, &p, rhs);
    out[idx] = rk3_substep(lnrho[idx], rhs[0], &w[idx], 1, 1e-3f);
}
