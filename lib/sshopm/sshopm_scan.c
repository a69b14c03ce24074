/* Diffusion-MRI scans end to end: NIfTI + bval/bvec (+ mask) -> CSA ODF tensors -> peaks -> dipy's peaks layout
 * (docs/sshopm.md, "Diffusion-MRI scans"). */
#include "clpk_sshopm.h"
#include "io_nifti.h"
#include "png_write.h"
#include "sshopm_internal.h"
#include "sshopm_render.h"
#include "sshopm_sh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct clpk_sshopm_scan_geometry {
    nifti_file header; /* the input's geometry fields; data NULL */
};

void clpk_sshopm_scan_peaks_free(clpk_sshopm_scan_peaks *s) {
    if (!s) return;
    clpk_sshopm_peaks_free(&s->peaks);
    free(s->background);
    free(s->geometry);
    memset(s, 0, sizeof *s);
}

clpk_status clpk_sshopm_dmri_scan(clpk_context *ctx, const char *dwi_path, const char *bval_path,
                                  const char *bvec_path, const char *mask_path, const clpk_sshopm_odf_options *odf,
                                  const clpk_sshopm_peak_options *peaks, clpk_sshopm_scan_peaks *out) {
    if (!ctx || !out) return CLPK_ERROR_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (!dwi_path || !bval_path || !bvec_path)
        return core_fail(ctx, CLPK_ERROR_INVALID_ARGUMENT, "dmri: the scan, bval and bvec files are required");
    clpk_sshopm_odf_options oo;
    clpk_sshopm_odf_options_default(&oo);
    if (odf) oo = *odf;
    clpk_error err = {0};
    nifti_file vol = {0}, mask = {0};
    clpk_sshopm_gradients g = {0};
    clpk_sshopm_odf_model *model = NULL;
    double *tensors = NULL;
    uint8_t *active = NULL, *valid = NULL;
    clpk_sshopm_peak_options po;
    clpk_sshopm_peak_options_default(&po);
    if (peaks) po = *peaks;
    /* the device pipeline needs the device de-duplication; the refinement runs on the host */
    const int device = po.device_fit && po.device_post && !po.refine;
    clpk_sshopm_scan_times *tm = &out->times;
    double tick = core_wall_seconds();
    clpk_status st = nifti_file_read(dwi_path, &vol, &err);
    if (st == CLPK_SUCCESS && (vol.ndim < 4 || vol.nt < 2))
        st = core_error_set(&err, CLPK_ERROR_INVALID_DATA,
                            "%s: a %dx%dx%d volume with %d volume(s) along dimension 4; a diffusion scan is 4-D "
                            "(X x Y x Z x volumes)",
                            dwi_path, (int)vol.nx, (int)vol.ny, (int)vol.nz, (int)vol.nt);
    if (st == CLPK_SUCCESS) st = clpk_sshopm_gradients_read(bval_path, bvec_path, oo.b0_threshold, &g, &err);
    if (st == CLPK_SUCCESS && g.volumes != vol.nt)
        st = core_error_set(&err, CLPK_ERROR_INVALID_DATA, "%s: %d b-values, but %s has %d volumes", bval_path,
                            g.volumes, dwi_path, (int)vol.nt);
    const int64_t nvox = (int64_t)vol.nx * vol.ny * vol.nz;
    if (st == CLPK_SUCCESS && mask_path) {
        st = nifti_file_read(mask_path, &mask, &err);
        if (st == CLPK_SUCCESS && (mask.nx != vol.nx || mask.ny != vol.ny || mask.nz != vol.nz || mask.nt != 1))
            st = core_error_set(&err, CLPK_ERROR_INVALID_DATA,
                                "%s: mask of %dx%dx%dx%d voxels, but the scan's grid is %dx%dx%d", mask_path,
                                (int)mask.nx, (int)mask.ny, (int)mask.nz, (int)mask.nt, (int)vol.nx, (int)vol.ny,
                                (int)vol.nz);
    }
    tm->read = core_wall_seconds() - tick, tick = core_wall_seconds();
    if (st == CLPK_SUCCESS) st = clpk_sshopm_odf_model_create(&g, &oo, &model, &err);
    tm->setup = core_wall_seconds() - tick, tick = core_wall_seconds();
    if (st != CLPK_SUCCESS) {
        nifti_file_free(&vol);
        nifti_file_free(&mask);
        clpk_sshopm_gradients_free(&g);
        return core_fail_from(ctx, &err);
    }
    clpk_sshopm_odf_model_describe(model, out->model, sizeof out->model);
    const int U = clpk_sshopm_unique_count(oo.order, 3);
    tensors = device ? NULL : malloc((size_t)nvox * U * sizeof *tensors);
    valid = device ? NULL : malloc((size_t)nvox);
    active = mask_path ? malloc((size_t)nvox) : NULL;
    out->background = calloc((size_t)nvox, sizeof *out->background);
    out->geometry = calloc(1, sizeof *out->geometry);
    if ((!device && (!tensors || !valid)) || (mask_path && !active) || !out->background || !out->geometry)
        st = core_fail(ctx, CLPK_ERROR_OUT_OF_MEMORY, "dmri: out of host memory for %lld voxels", (long long)nvox);
    if (st == CLPK_SUCCESS) {
        out->nx = vol.nx, out->ny = vol.ny, out->nz = vol.nz;
        out->geometry->header = vol;
        out->geometry->header.data = NULL;
        for (int64_t v = 0; active && v < nvox; ++v) active[v] = mask.data[v] != 0 && !isnan(mask.data[v]);
        int nb0 = 0;
        for (int q = 0; q < g.volumes; ++q)
            if (g.is_b0[q]) {
                nb0++;
                for (int64_t v = 0; v < nvox; ++v) out->background[v] += (float)vol.data[q * nvox + v];
            }
        for (int64_t v = 0; v < nvox; ++v) out->background[v] /= (float)nb0;
        tm->prep += core_wall_seconds() - tick, tick = core_wall_seconds();
        if (!device) {
            st = clpk_sshopm_odf_fit(model, vol.data, nvox, active, tensors, valid, &out->voxels_fitted, &err);
            if (st != CLPK_SUCCESS) core_fail_from(ctx, &err);
            tm->fit = core_wall_seconds() - tick;
            core_log(ctx, CLPK_LOG_INFO, "dmri: %s; fit of %lld voxels on the host: %.3f s", out->model,
                     (long long)nvox, tm->fit);
        }
    }
    if (st == CLPK_SUCCESS && device) {
        out->device_pipeline = 1;
        st = sshopm_scan_device(ctx, model, vol.data, nvox, active, &po, &out->peaks, &out->voxels_fitted, tm);
    } else if (st == CLPK_SUCCESS) {
        /* the peaks' own plan creation counts as setup: what its stages do not account for */
        const double before = tm->prep + tm->solve + tm->select;
        tick = core_wall_seconds();
        st = sshopm_tensor_peaks_timed(ctx, oo.order, tensors, nvox, valid, &po, &out->peaks, tm);
        tm->setup += core_wall_seconds() - tick - (tm->prep + tm->solve + tm->select - before);
    }
    tm->compute = tm->setup + tm->prep + tm->upload + tm->fit + tm->solve + tm->reduce + tm->select + tm->download +
                  tm->host;
    free(tensors);
    free(valid);
    free(active);
    clpk_sshopm_odf_model_destroy(model);
    nifti_file_free(&vol);
    nifti_file_free(&mask);
    clpk_sshopm_gradients_free(&g);
    if (st != CLPK_SUCCESS) clpk_sshopm_scan_peaks_free(out);
    return st;
}

clpk_status clpk_sshopm_dmri_scan_write(const char *prefix, const clpk_sshopm_scan_peaks *s, int slice,
                                        clpk_error *err) {
    if (!prefix || !s || !s->peaks.dirs || !s->geometry)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri write: NULL argument");
    const int64_t nvox = (int64_t)s->nx * s->ny * s->nz;
    const int K = s->peaks.max_peaks;
    size_t plen = strlen(prefix) + 32;
    char *path = malloc(plen);
    float *buf = malloc((size_t)nvox * K * 3 * sizeof *buf);
    if (!path || !buf) {
        free(path);
        free(buf);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "dmri write: out of memory");
    }
    /* NIfTI order: x fastest, then y, z, the peak, the component */
    for (int64_t v = 0; v < nvox; ++v)
        for (int k = 0; k < K; ++k)
            for (int c = 0; c < 3; ++c) buf[v + nvox * (k + (int64_t)K * c)] = s->peaks.dirs[(v * K + k) * 3 + c];
    const int64_t dims5[5] = {s->nx, s->ny, s->nz, K, 3};
    snprintf(path, plen, "%s_peak_dirs.nii.gz", prefix);
    clpk_status st = nifti_file_write_f32(path, 5, dims5, buf, &s->geometry->header, err);
    if (st == CLPK_SUCCESS) {
        for (int64_t v = 0; v < nvox; ++v)
            for (int k = 0; k < K; ++k) buf[v + nvox * k] = s->peaks.values[v * K + k];
        snprintf(path, plen, "%s_peak_values.nii.gz", prefix);
        st = nifti_file_write_f32(path, 4, dims5, buf, &s->geometry->header, err);
    }
    if (st == CLPK_SUCCESS && slice >= -1) {
        if (slice >= s->nz)
            st = core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "dmri write: slice %d, the scan has %d", slice,
                                (int)s->nz);
        unsigned char *rgb = NULL;
        int w = 0, h = 0;
        if (st == CLPK_SUCCESS)
            st = sshopm_render_slice(s->nx, s->ny, s->nz, slice < 0 ? s->nz / 2 : slice, s->background, &s->peaks,
                                     &rgb, &w, &h, err);
        snprintf(path, plen, "%s_peaks.png", prefix);
        if (st == CLPK_SUCCESS) st = png_write_rgb(path, w, h, rgb, err);
        free(rgb);
    }
    free(path);
    free(buf);
    return st;
}
