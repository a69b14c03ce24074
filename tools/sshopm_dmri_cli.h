/* `clpk-sshopm dmri`: fibre peaks of a diffusion-MRI scan (included by clpk_sshopm.c; see docs/sshopm.md).
 *
 *   clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M.nii[.gz]] [--order 4|6|8] --out PREFIX
 */
#ifndef CLPK_EXAMPLES_SSHOPM_DMRI_CLI_H
#define CLPK_EXAMPLES_SSHOPM_DMRI_CLI_H

#include "clpk_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void dmri_usage(void) {
    printf("usage: clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M.nii[.gz]] [--order 4|6|8] "
           "--out PREFIX [options]\n"
           "Fits the constant-solid-angle Q-ball ODF per voxel, converts it to the symmetric tensor of the order,\n"
           "finds its maxima with SS-HOPM on the device and writes dipy's peaks layout:\n"
           "  PREFIX_peak_dirs.nii.gz (X x Y x Z x K x 3), PREFIX_peak_values.nii.gz (X x Y x Z x K), PREFIX_peaks.png\n"
           "  --order m             even spherical-harmonic / tensor order 2..8 (default 4)\n"
           "  --smooth L            Laplace-Beltrami regularisation (default 0.006, dipy's; noisy scans: 0.3-1)\n"
           "  --b0-threshold B      b <= B is a b = 0 volume (default 50)\n"
           "  --bmin B --bmax B     diffusion-weighted volumes used (default: [median/2, 2 median] of their b)\n"
           "  --max-peaks K         peaks per voxel, 1..16 (default 5, dipy's npeaks)\n"
           "  --relative-threshold T  keep maxima above T of the largest, over the ODF minimum (default 0.5)\n"
           "  --min-separation DEG  drop a maximum within DEG of a larger one (default 25)\n"
           "  --starts V            SS-HOPM starts per voxel (default 64)\n"
           "  --precision f32|f64   of the SS-HOPM run (default f32)\n"
           "  --post device|host    de-duplicate the maxima on the device (default) or on the host\n"
           "  --fit device|host     fit, tensor conversion and selection on the device (default) or the host\n"
           "  --slice Z             axial slice of the PNG (default: the middle one); --no-png: none\n"
           "  --device SEL          device index, P:D or name substring\n");
}

static int dmri_main(int argc, char **argv) {
    const char *dwi = NULL, *bval = NULL, *bvec = NULL, *mask = NULL, *out = NULL, *device = NULL;
    int slice = -1;
    clpk_sshopm_odf_options oo;
    clpk_sshopm_peak_options po;
    clpk_sshopm_odf_options_default(&oo);
    clpk_sshopm_peak_options_default(&po);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        double d = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            dmri_usage();
            return 0;
        }
        if (!strcmp(a, "--no-png")) {
            slice = -2;
            continue;
        }
        if (!v) {
            fprintf(stderr, "clpk-sshopm dmri: %s needs a value (see --help)\n", a);
            return 2;
        }
        ++i;
        d = strtod(v, &end);
        const int number = *v && !*end && isfinite(d), integer = number && d == floor(d);
        if (!strcmp(a, "--dwi")) dwi = v;
        else if (!strcmp(a, "--bval")) bval = v;
        else if (!strcmp(a, "--bvec")) bvec = v;
        else if (!strcmp(a, "--mask")) mask = v;
        else if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--order") && integer) oo.order = (int)d;
        else if (!strcmp(a, "--smooth") && number) oo.smooth = d;
        else if (!strcmp(a, "--b0-threshold") && number) oo.b0_threshold = d;
        else if (!strcmp(a, "--bmin") && number) oo.bmin = d;
        else if (!strcmp(a, "--bmax") && number) oo.bmax = d;
        else if (!strcmp(a, "--max-peaks") && integer) po.max_peaks = (int)d;
        else if (!strcmp(a, "--relative-threshold") && number) po.relative_threshold = d;
        else if (!strcmp(a, "--min-separation") && number) po.min_separation_deg = d;
        else if (!strcmp(a, "--starts") && integer) po.starts = (int)d;
        else if (!strcmp(a, "--slice") && integer && d >= 0) slice = (int)d;
        else if (!strcmp(a, "--precision") && clpk_precision_parse(v, &po.precision) == CLPK_SUCCESS) {
        } else if (!strcmp(a, "--fit") && (!strcmp(v, "device") || !strcmp(v, "host"))) po.device_fit = !strcmp(v, "device");
        else if (!strcmp(a, "--post") && (!strcmp(v, "device") || !strcmp(v, "host"))) po.device_post = !strcmp(v, "device");
        else {
            fprintf(stderr, "clpk-sshopm dmri: unknown argument or bad value: %s %s (see --help)\n", a, v);
            return 2;
        }
    }
    if (!dwi || !bval || !bvec || !out) {
        fprintf(stderr, "clpk-sshopm dmri: --dwi, --bval, --bvec and --out are required (see --help)\n");
        return 2;
    }
    if (oo.order < 2 || oo.order > 8 || oo.order % 2) {
        fprintf(stderr, "clpk-sshopm dmri: --order %d must be even, 2..8\n", oo.order);
        return 2;
    }
    clpk_context *ctx = NULL;
    if (clpk_context_create(&ctx, device) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm dmri: no device: %s\n", ctx ? clpk_last_error(ctx) : "context creation failed");
        return 1;
    }
    const clpk_device_info *dev = clpk_context_device_info(ctx);
    printf("device: %s / %s\n", dev->platform_name, dev->name);
    clpk_sshopm_scan_peaks scan;
    const double t0 = core_wall_seconds();
    if (clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, mask, &oo, &po, &scan) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm dmri: %s\n", clpk_last_error(ctx));
        clpk_context_destroy(ctx);
        return 1;
    }
    const double t1 = core_wall_seconds();
    const int64_t nvox = (int64_t)scan.nx * scan.ny * scan.nz;
    int64_t hist[17] = {0};
    for (int64_t v = 0; v < nvox; ++v) hist[scan.peaks.count[v]]++;
    printf("scan: %dx%dx%d voxels; model: %s\n", (int)scan.nx, (int)scan.ny, (int)scan.nz, scan.model);
    printf("fit and peaks: %.3f s; %lld voxels fitted; SS-HOPM starts %lld converged, %lld capped, %lld failed\n",
           t1 - t0, (long long)scan.voxels_fitted, (long long)scan.peaks.starts_converged,
           (long long)scan.peaks.starts_capped, (long long)scan.peaks.starts_failed);
    const clpk_sshopm_scan_times *tm = &scan.times;
    printf("compute (all but reading the files): %.3f s on the %s path; read %.3f s\n", tm->compute,
           scan.device_pipeline ? "device" : "host-fit", tm->read);
    printf("stages (s): setup %.3f, prep %.3f, upload %.3f, fit+tensor %.3f, solve %.3f, reduce %.3f, select %.3f, "
           "download %.3f, host %.3f\n",
           tm->setup, tm->prep, tm->upload, tm->fit, tm->solve, tm->reduce, tm->select, tm->download, tm->host);
    printf("peaks per voxel:");
    for (int k = 0; k <= po.max_peaks; ++k) printf(" %d: %lld%s", k, (long long)hist[k], k < po.max_peaks ? "," : "\n");
    clpk_error err = {0};
    int rc = 0;
    if (clpk_sshopm_dmri_scan_write(out, &scan, slice, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm dmri: %s\n", err.message);
        rc = 1;
    } else {
        printf("wrote %s_peak_dirs.nii.gz, %s_peak_values.nii.gz", out, out);
        if (slice >= -1) printf(", %s_peaks.png (slice %d)", out, slice < 0 ? (int)scan.nz / 2 : slice);
        printf("\n");
    }
    clpk_sshopm_scan_peaks_free(&scan);
    clpk_context_destroy(ctx);
    return rc;
}

#endif
