/*
 * point_terms.cuh -- what the streaming kernel hands the physics at a
 * finished point, and the call into ../physics.h.
 *
 * Included by stream_substep.cuh (once per precision).  The kernel takes
 * every field's derivatives by its role (../fields.h): a scalar's value,
 * gradient, Laplacian and del6; a vector's the same per component and its
 * grad div by eq. (8).  What no term reads is never computed: the kernel is
 * inlined whole, and unused stencils are dead code.  The functions below
 * map those derivatives onto physics.h's right-hand sides: the only place
 * in csrc/cuda that knows a field by name.
 */

/* A point's values and derivatives, by index among the configuration's
 * fields; a vector's grad div at the index of its x component. */
template <int NF>
struct AC_FN(point) {
    real value[NF];
    real grad[NF][3]; /* grad[f][a] = d_a f */
    real lap[NF];
    real grad_div[NF][3];
    real del6[NF];
};

/* The parameters of the terms, as the kernel receives them. */
typedef struct {
    ac_point_params p;
    ac_mhd_params magnetic;
    ac_hyper_params hyper;
} AC_FN(term_params);

/* The right-hand sides of the configuration's fields without the kernel
 * terms (continuity, momentum, and with the magnetic module the Lorentz
 * force and induction); d: the flow's derivatives, for add_shock. */
template <unsigned MODULES>
static __device__ __forceinline__ void AC_FN(point_rhs)(const AC_FN(point)<ac_field_count(MODULES)> & pt,
                                                        const AC_FN(term_params) & t, ac_derivatives *d, real *rhs)
{
    constexpr int L = ac_field_index(MODULES, AC_FIELD_lnrho), U = ac_field_index(MODULES, AC_FIELD_ux),
                  A = ac_field_index(MODULES, AC_FIELD_ax) < 0 ? 0 : ac_field_index(MODULES, AC_FIELD_ax);
#pragma unroll
    for (int a = 0; a < 3; ++a)
        d->grad_lnrho[a] = pt.grad[L][a];
#pragma unroll
    for (int i = 0; i < 3; ++i) {
        d->u[i] = pt.value[U + i];
#pragma unroll
        for (int a = 0; a < 3; ++a)
            d->grad_u[i][a] = pt.grad[U + i][a];
        d->lap_u[i] = pt.lap[U + i];
        d->grad_div_u[i] = pt.grad_div[U][i];
    }
    if (!(MODULES & AC_MODULE_MAGNETIC)) {
        rhs_from_derivatives(d, &t.p, rhs);
        return;
    }
    ac_magnetic_derivatives m;
    m.lnrho = pt.value[L];
#pragma unroll
    for (int i = 0; i < 3; ++i) {
#pragma unroll
        for (int a = 0; a < 3; ++a)
            m.grad_a[i][a] = pt.grad[A + i][a];
        m.lap_a[i] = pt.lap[A + i];
        m.grad_div_a[i] = pt.grad_div[A][i];
    }
    rhs_mhd_from_derivatives(d, &m, &t.p, &t.magnetic, rhs);
}

/* Hyperdiffusion (AC_KERNEL_HYPER3): diff_hyper3 del6 lnrho, nu_hyper3 del6 u. */
template <unsigned MODULES>
static __device__ __forceinline__ void AC_FN(add_hyper)(const AC_FN(point)<ac_field_count(MODULES)> & pt,
                                                        const AC_FN(term_params) & t, real *rhs)
{
#pragma unroll
    for (int f = 0; f < ac_field_count(MODULES); ++f)
        if (ac_field_module(ac_field_row(MODULES, f)) == AC_MODULE_HYDRO) {
            const real coefficient = ac_field_row(MODULES, f) == AC_FIELD_lnrho ? t.hyper.diff_hyper3 : t.hyper.nu_hyper3;
            if (coefficient != 0)
                rhs[f] += coefficient * pt.del6[f];
        }
}

/* Shock viscosity (AC_KERNEL_SHOCK): the profile zeta and its gradient. */
static __device__ __forceinline__ void AC_FN(add_shock)(const ac_derivatives &d, real zeta, const real grad_zeta[3],
                                                        real *rhs)
{
    add_shock_viscosity(&d, zeta, grad_zeta, rhs);
}

/* Whether the device-side CFL loop's speed is the flow's alone (max |u|^2,
 * which the kernel reduces); with a magnetic field it needs B (cuda_reduce_mhd). */
template <unsigned MODULES>
static constexpr __host__ __device__ bool AC_FN(speed_is_flow)()
{
    return !(MODULES & AC_MODULE_MAGNETIC);
}
