/* The device pipeline of clpk_sshopm_dmri_scan (fit, tensor conversion, SS-HOPM, reduction and selection on the
 * device; lib/sshopm/sshopm_scan_device.c) against the host path (the reference: fit and selection on the host in double)
 * on dipy's real small_64D scan (../shared/data; skipped with a message when absent), orders 4 and 6, without and
 * with a mask (the compacted voxel list and the scatter back). Both paths run SS-HOPM in f32 from the same starts;
 * the tensors differ by the device fit's float rounding, so the peaks must agree to within what f32 SS-HOPM's stop
 * leaves: same count in >= 99% of the voxels; matched directions within 0.5 degree for >= 99% of the peaks and within 5
 * degrees for all (a maximum on a flat ridge, value equal to 1e-5, is only located to degrees by the lambda stop: the
 * host path moves as much under the fit's float rounding); values within 1e-3 of the voxel's largest; the same voxels
 * fitted and the same start counts. */
#include "clpk_sshopm.h"
#include "io_nifti.h"
#include "sshopm_util.h"

#include <unistd.h>

static const double DEG = 57.29577951308232;

static void compare(const clpk_sshopm_scan_peaks *h, const clpk_sshopm_scan_peaks *d, const char *label) {
    const int64_t nvox = (int64_t)h->nx * h->ny * h->nz;
    const int K = h->peaks.max_peaks;
    int64_t differ = 0, with_peaks = 0, peaks = 0, off = 0;
    double worst_deg = 0, worst_val = 0;
    for (int64_t v = 0; v < nvox; ++v) {
        with_peaks += h->peaks.count[v] > 0;
        if (h->peaks.count[v] != d->peaks.count[v]) {
            differ++;
            continue;
        }
        const double top = fabs(h->peaks.values[v * K]);
        for (int k = 0; k < h->peaks.count[v]; ++k) { /* the nearest device peak (near-equal values may swap) */
            const float *a = h->peaks.dirs + (v * K + k) * 3;
            double best = INFINITY;
            int bj = 0;
            for (int j = 0; j < d->peaks.count[v]; ++j) {
                const float *b = d->peaks.dirs + (v * K + j) * 3;
                const double c = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2]);
                const double ang = acos(fmin(1.0, c)) * DEG;
                if (ang < best) best = ang, bj = j;
            }
            if (best > 1.0 && getenv("SCAN_DEVICE_DEBUG"))
                printf("voxel %lld peak %d: host (%g %g %g) %g, device (%g %g %g) %g, %.3f deg\n", (long long)v, k,
                       a[0], a[1], a[2], h->peaks.values[v * K + k], d->peaks.dirs[(v * K + bj) * 3],
                       d->peaks.dirs[(v * K + bj) * 3 + 1], d->peaks.dirs[(v * K + bj) * 3 + 2],
                       d->peaks.values[v * K + bj], best);
            worst_deg = fmax(worst_deg, best);
            peaks++;
            off += best > 0.5;
            worst_val = fmax(worst_val, fabs(h->peaks.values[v * K + k] - d->peaks.values[v * K + bj]) / top);
        }
        for (int k = h->peaks.count[v]; k < K; ++k) /* unused slots zero on both paths */
            if (d->peaks.values[v * K + k] != 0 || d->peaks.dirs[(v * K + k) * 3] != 0) worst_val = INFINITY;
    }
    printf("%s: %lld voxels (%lld with peaks), count differs in %lld, %lld of %lld peaks > 0.5 deg apart, worst "
           "direction %.3f deg, value %.2e; compute host %.3f s, device %.3f s\n",
           label, (long long)nvox, (long long)with_peaks, (long long)differ, (long long)off, (long long)peaks,
           worst_deg, worst_val, h->times.compute, d->times.compute);
    CHECK(!h->device_pipeline && d->device_pipeline, "%s: the paths taken", label);
    CHECK(differ * 100 <= nvox, "%s: peak counts differ in %lld of %lld voxels", label, (long long)differ,
          (long long)nvox);
    CHECK(off * 100 <= peaks && worst_deg <= 5.0 && worst_val <= 1e-3,
          "%s: %lld peaks > 0.5 deg apart, directions within %.3f deg, values within %.2e", label, (long long)off,
          worst_deg, worst_val);
    CHECK(h->voxels_fitted == d->voxels_fitted, "%s: voxels fitted %lld vs %lld", label, (long long)h->voxels_fitted,
          (long long)d->voxels_fitted);
    const int64_t sh = h->peaks.starts_converged + h->peaks.starts_capped + h->peaks.starts_failed,
                  sd = d->peaks.starts_converged + d->peaks.starts_capped + d->peaks.starts_failed;
    CHECK(sh == sd && d->peaks.starts_failed == h->peaks.starts_failed, "%s: starts %lld vs %lld", label, (long long)sh,
          (long long)sd);
    const clpk_sshopm_scan_times *t = &d->times;
    CHECK(t->fit > 0 && t->solve > 0 && t->select > 0 && t->compute >= t->fit + t->solve + t->select,
          "%s: device stage times recorded", label);
}

int main(void) {
    const char *data = getenv("CLPK_SHARED_DATA_DIR") ? getenv("CLPK_SHARED_DATA_DIR") : CLPK_SHARED_DATA_DIR;
    char dwi[1024], bval[1024], bvec[1024];
    snprintf(dwi, sizeof dwi, "%s/dmri/small_64D.nii", data);
    snprintf(bval, sizeof bval, "%s/dmri/small_64D.bval", data);
    snprintf(bvec, sizeof bvec, "%s/dmri/small_64D.bvec", data);
    if (access(dwi, R_OK) != 0) {
        printf("%s absent: device pipeline checks skipped\n", dwi);
        return check_summary();
    }
    clpk_context *ctx = sshopm_test_context();
    if (!ctx) return check_summary();
    check_tmp_dir dir;
    if (!CHECK(check_tmp_dir_create(&dir, "sshopm-scan-device"), "temporary directory")) {
        clpk_context_destroy(ctx);
        return check_summary();
    }
    /* a mask with holes (every third voxel out) and a slab fully out */
    float mask[1000];
    for (int v = 0; v < 1000; ++v)
        mask[v] = (float)(v % 3 != 0 && v >= 100);
    char mpath[1024];
    const int64_t mdims[3] = {10, 10, 10};
    clpk_error err = {0};
    CHECK(nifti_file_write_f32(check_tmp_file(&dir, "mask.nii", mpath, sizeof mpath), 3, mdims, mask, NULL, &err) ==
              CLPK_SUCCESS,
          "mask written: %s", err.message);
    for (int order = 4; order <= 6; order += 2)
        for (int masked = 0; masked < 2; ++masked) {
            clpk_sshopm_odf_options oo;
            clpk_sshopm_odf_options_default(&oo);
            oo.order = order;
            clpk_sshopm_peak_options po;
            clpk_sshopm_peak_options_default(&po);
            clpk_sshopm_scan_peaks h = {0}, d = {0};
            char label[64];
            snprintf(label, sizeof label, "small_64D order %d%s", order, masked ? " masked" : "");
            po.device_fit = 0;
            int ok =
                CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, masked ? mpath : NULL, &oo, &po, &h) == CLPK_SUCCESS,
                      "%s host: %s", label, clpk_last_error(ctx));
            po.device_fit = 1;
            ok = CHECK(clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, masked ? mpath : NULL, &oo, &po, &d) == CLPK_SUCCESS,
                       "%s device: %s", label, clpk_last_error(ctx)) &&
                 ok;
            if (ok) compare(&h, &d, label);
            if (ok && masked) {
                int outside = 1;
                for (int v = 0; v < 1000; ++v)
                    if (mask[v] == 0) outside &= d.peaks.count[v] == 0 && d.peaks.values[v * 5] == 0;
                CHECK(outside && d.voxels_fitted == 600, "%s: no peaks outside the mask, %lld fitted", label,
                      (long long)d.voxels_fitted);
            }
            clpk_sshopm_scan_peaks_free(&h);
            clpk_sshopm_scan_peaks_free(&d);
        }
    unlink(mpath);
    check_tmp_dir_remove(&dir);
    clpk_context_destroy(ctx);
    return check_summary();
}
