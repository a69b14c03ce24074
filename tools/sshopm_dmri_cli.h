/* `clpk-sshopm dmri`: fibre peaks of a diffusion-MRI scan (included by clpk_sshopm.c; see docs/sshopm.md).
 *
 *   clpk-sshopm dmri --dwi F.nii[.gz] --bval F --bvec F [--mask M.nii[.gz]] [--order 4|6|8] --out PREFIX
 */
#ifndef CLPK_TOOLS_SSHOPM_DMRI_CLI_H
#define CLPK_TOOLS_SSHOPM_DMRI_CLI_H

#include <clpk.h>

#include "cli_args.h"
#include "cli_clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dmri_synopsis =
    "--dwi F.nii[.gz] --bval F --bvec F [--mask M.nii[.gz]] [--order 4|6|8] --out PREFIX [options]\n"
    "Fits the constant-solid-angle Q-ball ODF per voxel, converts it to the symmetric tensor of the order,\n"
    "finds its maxima with SS-HOPM on the device and writes dipy's peaks layout:\n"
    "  PREFIX_peak_dirs.nii.gz (X x Y x Z x K x 3), PREFIX_peak_values.nii.gz (X x Y x Z x K), PREFIX_peaks.png";

static int dmri_bad_value(const char *option, const char *value) {
    return cli_fail("clpk-sshopm dmri", "unknown argument or bad value: %s %s (see --help)", option, value);
}

static int dmri_main(int argc, char **argv) {
    const char *dwi = NULL, *bval = NULL, *bvec = NULL, *mask = NULL, *out = NULL, *device = NULL;
    const char *precision = NULL, *fit = NULL, *post = NULL;
    long long order = CLI_INT_UNSET, max_peaks = CLI_INT_UNSET, starts = CLI_INT_UNSET, slice = CLI_INT_UNSET;
    int no_png = 0;
    clpk_sshopm_odf_options oo;
    clpk_sshopm_peak_options po;
    clpk_sshopm_odf_options_default(&oo);
    clpk_sshopm_peak_options_default(&po);
    const cli_option options[] = {
        {"--dwi", CLI_STRING, &dwi, "F.nii[.gz]", "the diffusion-weighted scan (required)"},
        {"--bval", CLI_STRING, &bval, "F", "its b-values (required)"},
        {"--bvec", CLI_STRING, &bvec, "F", "its gradient directions (required)"},
        {"--mask", CLI_STRING, &mask, "M.nii[.gz]", "only the voxels of this mask"},
        {"--out", CLI_STRING, &out, "PREFIX", "where the peaks go (required)"},
        {"--order", CLI_INT, &order, "m", "even spherical-harmonic / tensor order 2..8 (default 4)"},
        {"--smooth", CLI_DOUBLE, &oo.smooth, "L",
         "Laplace-Beltrami regularisation (default 0.006, dipy's; noisy scans: 0.3-1)"},
        {"--b0-threshold", CLI_DOUBLE, &oo.b0_threshold, "B", "b <= B is a b = 0 volume (default 50)"},
        {"--bmin", CLI_DOUBLE, &oo.bmin, "B", "with --bmax: the diffusion-weighted volumes used"},
        {"--bmax", CLI_DOUBLE, &oo.bmax, "B", "(default: [median/2, 2 median] of their b)"},
        {"--max-peaks", CLI_INT, &max_peaks, "K", "peaks per voxel, 1..16 (default 5, dipy's npeaks)"},
        {"--relative-threshold", CLI_DOUBLE, &po.relative_threshold, "T",
         "keep maxima above T of the largest, over the ODF minimum (default 0.5)"},
        {"--min-separation", CLI_DOUBLE, &po.min_separation_deg, "DEG",
         "drop a maximum within DEG of a larger one (default 25)"},
        {"--starts", CLI_INT, &starts, "V", "SS-HOPM starts per voxel (default 64)"},
        {"--precision", CLI_STRING, &precision, "f32|f64", "of the SS-HOPM run (default f32)"},
        {"--post", CLI_STRING, &post, "device|host", "de-duplicate the maxima on the device (default) or on the host"},
        {"--fit", CLI_STRING, &fit, "device|host",
         "fit, tensor conversion and selection on the device (default) or the host"},
        {"--slice", CLI_INT, &slice, "Z", "axial slice of the PNG (default: the middle one)"},
        {"--no-png", CLI_FLAG, &no_png, NULL, "no PNG"},
        {"--device", CLI_STRING, &device, "SEL", "device index, P:D or name substring"},
        {NULL, 0, NULL, NULL, NULL}};
    int parsed = cli_parse("clpk-sshopm dmri", dmri_synopsis, options, argc, argv, 1, NULL);
    if (parsed) return parsed == 1 ? 0 : parsed;
    static const char *const places[] = {"host", "device", NULL};
    if (order != CLI_INT_UNSET) oo.order = (int)order;
    if (max_peaks != CLI_INT_UNSET) po.max_peaks = (int)max_peaks;
    if (starts != CLI_INT_UNSET) po.starts = (int)starts;
    if (slice != CLI_INT_UNSET && slice < 0) return cli_fail("clpk-sshopm dmri", "bad value for --slice: %lld", slice);
    if (precision && clpk_precision_parse(precision, &po.precision) != CLPK_SUCCESS)
        return dmri_bad_value("--precision", precision);
    if (fit && cli_choice(fit, places) < 0) return dmri_bad_value("--fit", fit);
    if (fit) po.device_fit = cli_choice(fit, places);
    if (post && cli_choice(post, places) < 0) return dmri_bad_value("--post", post);
    if (post) po.device_post = cli_choice(post, places);
    /* -2: no PNG, -1: the middle slice */
    const int png_slice = no_png ? -2 : slice == CLI_INT_UNSET ? -1 : (int)slice;
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
    const double t0 = cli_wall_seconds();
    if (clpk_sshopm_dmri_scan(ctx, dwi, bval, bvec, mask, &oo, &po, &scan) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm dmri: %s\n", clpk_last_error(ctx));
        clpk_context_destroy(ctx);
        return 1;
    }
    const double t1 = cli_wall_seconds();
    const int64_t nvox = (int64_t)scan.nx * scan.ny * scan.nz;
    int64_t hist[17] = {0};
    for (int64_t v = 0; v < nvox; ++v)
        hist[scan.peaks.count[v]]++;
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
    for (int k = 0; k <= po.max_peaks; ++k)
        printf(" %d: %lld%s", k, (long long)hist[k], k < po.max_peaks ? "," : "\n");
    clpk_error err = {0};
    int rc = 0;
    if (clpk_sshopm_dmri_scan_write(out, &scan, png_slice, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-sshopm dmri: %s\n", err.message);
        rc = 1;
    } else {
        printf("wrote %s_peak_dirs.nii.gz, %s_peak_values.nii.gz", out, out);
        if (png_slice >= -1) printf(", %s_peaks.png (slice %d)", out, png_slice < 0 ? (int)scan.nz / 2 : png_slice);
        printf("\n");
    }
    clpk_sshopm_scan_peaks_free(&scan);
    clpk_context_destroy(ctx);
    return rc;
}

#endif
