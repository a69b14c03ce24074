/* The diffusion-MRI example end to end on small fields: synthetic crossing fibres -> SS-HOPM local maxima on the
 * device -> fibre estimates (peaks, and the low-rank refinement) -> angular errors against the truth.
 *  - noiseless single fibres: the peak is the fibre (to 0.05 degrees: f32 stopping at |dlambda| <= 1e-7 leaves x
 *    off by about sqrt(1e-7) radians);
 *  - SNR 50, 1-2 fibres crossing at >= 45 degrees, orders 4 and 6: the refinement recovers every fibre within
 *    2 degrees in at least 95% of cases (the median far below) with few spurious fibres;
 *  - orthogonal crossings make exact peaks even without refinement (the rank-one terms do not interact there);
 *  - bad options are refused. */
#include "clpk_sshopm.h"
#include "sshopm_util.h"

static int run(clpk_context *ctx, const clpk_sshopm_dmri_options *d, clpk_sshopm_dmri_field *field,
               clpk_sshopm_result *r) {
    clpk_error err = {0};
    if (!CHECK(clpk_sshopm_dmri_synth(d, field, &err) == CLPK_SUCCESS, "synth: %s", err.message)) return 0;
    clpk_sshopm_options o;
    clpk_sshopm_options_default(&o);
    o.starts = 48;
    o.starts_kind = CLPK_SSHOPM_STARTS_SPHERE;
    o.shift = CLPK_SSHOPM_SHIFT_FIXED;
    o.alpha = 1; /* lambda_max <= sum of weights <= 2: a modest convex shift */
    o.tol = 1e-7;
    o.max_iter = 3000;
    clpk_sshopm_plan *plan = NULL;
    int ok =
        CHECK(clpk_sshopm_plan_create(ctx, d->order, 3, CLPK_PRECISION_F32, field->voxels, &o, &plan) == CLPK_SUCCESS,
              "plan: %s", clpk_last_error(ctx));
    ok = ok && CHECK(clpk_sshopm_solve_host(plan, field->tensors, field->voxels, NULL, r) == CLPK_SUCCESS, "solve: %s",
                     clpk_last_error(ctx));
    clpk_sshopm_plan_destroy(plan);
    return ok;
}

static void report(const char *label, const clpk_sshopm_dmri_stats *s) {
    printf("%-34s fibres %lld found %.3f  error mean %.3f median %.3f p90 %.3f max %.3f deg  spurious %lld exact "
           "voxels %lld\n",
           label, (long long)s->fibres, s->fraction_found, s->mean_deg, s->median_deg, s->p90_deg, s->max_deg,
           (long long)s->spurious, (long long)s->voxels_exact);
}

int main(void) {
    check_seed();
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    clpk_error err = {0};

    /* noiseless single fibres: the local max is the fibre */
    {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_options_default(&d);
        d.voxels = 40;
        d.max_fibres = 1;
        d.snr = 0;
        d.seed = 11;
        clpk_sshopm_dmri_field f;
        clpk_sshopm_result r;
        if (run(ctx, &d, &f, &r)) {
            clpk_sshopm_dmri_fibres p;
            clpk_sshopm_dmri_stats s;
            CHECK(clpk_sshopm_dmri_peaks(&r, 0.5, &p, &err) == CLPK_SUCCESS, "peaks: %s", err.message);
            CHECK(clpk_sshopm_dmri_evaluate(&f, &p, 10, &s, NULL, &err) == CLPK_SUCCESS, "evaluate");
            report("order 4, 1 fibre, no noise, peaks", &s);
            CHECK(s.fraction_found == 1 && s.max_deg < 0.05 && s.spurious == 0, "single fibres exact: max %.4f deg",
                  s.max_deg);
            clpk_sshopm_dmri_fibres_free(&p);
            clpk_sshopm_result_free(&r);
        }
        clpk_sshopm_dmri_field_free(&f);
    }
    /* SNR 50, crossings >= 45 degrees, orders 4 and 6 */
    for (int order = 4; order <= 6; order += 2) {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_options_default(&d);
        d.voxels = order == 4 ? 120 : 60;
        d.order = order;
        d.max_fibres = 2;
        d.min_angle_deg = 45;
        d.snr = 50;
        d.seed = 5 + order;
        clpk_sshopm_dmri_field f;
        clpk_sshopm_result r;
        if (run(ctx, &d, &f, &r)) {
            clpk_sshopm_dmri_fibres p, q;
            clpk_sshopm_dmri_stats sp, sq, s2;
            char label[64];
            CHECK(clpk_sshopm_dmri_peaks(&r, 0.3, &p, &err) == CLPK_SUCCESS, "peaks: %s", err.message);
            CHECK(clpk_sshopm_dmri_evaluate(&f, &p, 20, &sp, NULL, &err) == CLPK_SUCCESS, "evaluate peaks");
            snprintf(label, sizeof label, "order %d, SNR 50, peaks", order);
            report(label, &sp);
            CHECK(clpk_sshopm_dmri_refine(f.tensors, &r, 0.06, &q, &err) == CLPK_SUCCESS, "refine: %s", err.message);
            CHECK(clpk_sshopm_dmri_evaluate(&f, &q, 20, &sq, NULL, &err) == CLPK_SUCCESS, "evaluate refined");
            snprintf(label, sizeof label, "order %d, SNR 50, refined", order);
            report(label, &sq);
            CHECK(clpk_sshopm_dmri_evaluate(&f, &q, 2, &s2, NULL, &err) == CLPK_SUCCESS, "evaluate refined 2 deg");
            CHECK(s2.fraction_found >= 0.95, "order %d: %.3f of fibres within 2 degrees", order, s2.fraction_found);
            CHECK(sq.median_deg < 1.0, "order %d: median error %.3f deg", order, sq.median_deg);
            CHECK(sq.spurious <= sq.fibres / 20, "order %d: %lld spurious fibres", order, (long long)sq.spurious);
            clpk_sshopm_dmri_fibres_free(&p);
            clpk_sshopm_dmri_fibres_free(&q);
            clpk_sshopm_result_free(&r);
        }
        clpk_sshopm_dmri_field_free(&f);
    }
    /* orthogonal crossings: exact peaks without refinement (noiseless) */
    {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_options_default(&d);
        d.voxels = 30;
        d.max_fibres = 3;
        d.min_angle_deg = 80;
        d.snr = 0;
        d.seed = 3;
        clpk_sshopm_dmri_field f;
        clpk_sshopm_result r;
        if (run(ctx, &d, &f, &r)) {
            clpk_sshopm_dmri_fibres q;
            clpk_sshopm_dmri_stats s;
            CHECK(clpk_sshopm_dmri_refine(f.tensors, &r, 0.01, &q, &err) == CLPK_SUCCESS, "refine: %s", err.message);
            CHECK(clpk_sshopm_dmri_evaluate(&f, &q, 5, &s, NULL, &err) == CLPK_SUCCESS, "evaluate");
            report("order 4, 1-3 fibres >= 80 deg, refined", &s);
            CHECK(s.fraction_found == 1 && s.max_deg < 0.05, "wide crossings noiseless: found %.3f, max %.3f deg",
                  s.fraction_found, s.max_deg);
            clpk_sshopm_dmri_fibres_free(&q);
            clpk_sshopm_result_free(&r);
        }
        clpk_sshopm_dmri_field_free(&f);
    }
    /* bad options */
    {
        clpk_sshopm_dmri_options d;
        clpk_sshopm_dmri_field f;
        clpk_sshopm_dmri_options_default(&d);
        d.order = 5;
        CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_ERROR_INVALID_ARGUMENT, "odd order refused");
        clpk_sshopm_dmri_options_default(&d);
        d.max_fibres = 4;
        CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_ERROR_INVALID_ARGUMENT, "4 fibres refused");
        clpk_sshopm_dmri_options_default(&d);
        d.snr = NAN;
        CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_ERROR_INVALID_ARGUMENT, "NaN SNR refused");
        d.snr = 50;
        d.voxels = 0;
        CHECK(clpk_sshopm_dmri_synth(&d, &f, &err) == CLPK_ERROR_INVALID_ARGUMENT, "no voxels refused");
    }
    clpk_context_destroy(ctx);
    return check_summary();
}
