/* clpk-info: lists OpenCL platforms and devices, the facts clpk uses, and which tuning profile each would use. */
#include <clpk.h>

#include "cli_args.h"

#include <stdio.h>

static const char *device_kind_name(clpk_device_kind kind) {
    return kind == CLPK_DEVICE_CPU ? "CPU" : kind == CLPK_DEVICE_GPU ? "GPU" : "OTHER";
}

static void print_device(size_t index, const clpk_device_info *d) {
    char path[1024];
    clpk_profile_level level = clpk_profile_for_device(d, path, sizeof path);
    printf("[%zu] %s / %s\n", index, d->platform_name, d->name);
    printf("    answers to: %zu, %s, %s (and any part of its names or vendors)\n", index, d->implementation,
           d->kind == CLPK_DEVICE_CPU   ? "cpu"
           : d->kind == CLPK_DEVICE_GPU ? "gpu"
                                        : "accelerator");
    printf("    vendor %s, platform vendor %s, driver %s, %s, type %s\n", d->vendor, d->platform_vendor,
           d->driver_version, d->device_version, device_kind_name(d->kind));
    printf("    %u compute units @ %u MHz, max work-group %zu, local mem %llu KiB, global mem %.1f GiB, "
           "max alloc %.1f GiB, global cache %.1f MiB\n",
           d->compute_units, d->max_clock_mhz, d->max_work_group_size, (unsigned long long)(d->local_mem_bytes / 1024),
           (double)d->global_mem_bytes / (1 << 30), (double)d->max_alloc_bytes / (1 << 30),
           (double)d->global_cache_bytes / (1 << 20));
    printf("    %s; fp64 %s, int32 atomics %s, int64 atomics %s, sub-groups %s, sub-group shuffle %s, SIMD width %u\n",
           d->opencl_c_version, d->has_fp64 ? "yes" : "no", d->has_int32_global_atomics ? "yes" : "no",
           d->has_int64_atomics ? "yes" : "no", d->has_subgroups ? "yes" : "no", d->has_subgroup_shuffle ? "yes" : "no",
           d->simd_width_hint);
    printf("    profile: %s%s%s\n", clpk_profile_level_string(level), path[0] ? " " : "", path);
}

int main(int argc, char **argv) {
    const char *selector = NULL;
    const char *family = NULL, *features = NULL;
    int bandwidth = 0;
    const cli_option options[] = {
        {"--device", CLI_STRING, &selector, "SEL",
         "also open SEL and report the chosen device, cache and profile. SEL is an index, P:D,\n"
         "or comma-separated terms that must all match: an implementation (pocl, intel, nvidia,\n"
         "amd, oclgrind, ...), a type (cpu, gpu) or a substring of a name; default\n"
         "$CLPK_DEVICE, else the first GPU, else the first CPU"},
        {"--bandwidth", CLI_FLAG, &bandwidth, NULL, "measure the chosen device's copy bandwidth"},
        {"--family", CLI_STRING, &family, "F",
         "with --features: which profile entry (class and parameters) a problem of family F\n"
         "(spmv, life, sshopm, xcorr) would use on the chosen device"},
        {"--features", CLI_STRING, &features, "k=v,...", "the problem's features, e.g. precision=f32,rows=800000"},
        {NULL, 0, NULL, NULL, NULL}};
    int rc = cli_parse("clpk-info",
                       "[--device SEL] [--bandwidth] [--family F --features k=v,...]\n"
                       "  Lists every OpenCL device with the facts clpk uses and the profile it would use.",
                       options, argc, argv, 1, NULL);
    if (rc) return rc == 1 ? 0 : rc;
    if (features && !family) return cli_fail("clpk-info", "--features needs --family");
    int open_device = selector || family || features || bandwidth;
    clpk_device_info infos[64];
    size_t n = 0;
    clpk_error err = {0};
    if (clpk_list_devices(infos, 64, &n, &err) != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-info: %s\n", err.message);
        return 1;
    }
    printf("%zu OpenCL device%s:\n", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n && i < 64; ++i)
        print_device(i, &infos[i]);
    if (!open_device) return 0;

    clpk_context *ctx = NULL;
    clpk_status st = clpk_context_create(&ctx, selector);
    if (st != CLPK_SUCCESS) {
        fprintf(stderr, "clpk-info: cannot open device '%s': %s\n", selector ? selector : "(default)",
                clpk_status_string(st));
        return 1;
    }
    const clpk_device_info *d = clpk_context_device_info(ctx);
    const char *profile_path;
    clpk_profile_level level = clpk_context_profile(ctx, &profile_path);
    printf("\nchosen device: %s / %s\n", d->platform_name, d->name);
    printf("program cache: %s\n", clpk_context_cache_dir(ctx)[0] ? clpk_context_cache_dir(ctx) : "(disk cache off)");
    printf("profile: %s %s\n", clpk_profile_level_string(level), profile_path);
    if (family) {
        clpk_profile_entry entry;
        if (clpk_profile_find(ctx, family, features, &entry) != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-info: %s\n", clpk_last_error(ctx));
            clpk_context_destroy(ctx);
            return 2;
        }
        printf("family %s, features {%s}:\n", family, features ? features : "");
        if (entry.found) {
            printf("  profile entry of class {%s} (distance %.3g) in %s (%s)\n", entry.klass, entry.distance,
                   entry.path, clpk_profile_level_string(entry.level));
            printf("  parameters: %s\n", entry.params);
        } else {
            printf("  no profile entry applies: the family's built-in defaults\n");
        }
        if (entry.reason[0]) printf("  why: %s\n", entry.reason);
        printf("  resolved (before the family's own rules): %s\n", entry.resolved);
    }
    if (bandwidth) {
        clpk_bench_stats s;
        size_t bytes = d->kind == CLPK_DEVICE_GPU ? (size_t)1 << 30 : (size_t)1 << 27;
        st = clpk_bench_copy_bandwidth(ctx, bytes, &s);
        if (st != CLPK_SUCCESS) {
            fprintf(stderr, "clpk-info: bandwidth probe failed: %s\n", clpk_last_error(ctx));
        } else {
            printf("copy bandwidth: %.1f GB/s (median of %d, %.3f ms for %.0f MB read+write)\n", s.gbps, s.runs,
                   s.median_ms, s.bytes / 1e6);
        }
    }
    clpk_context_destroy(ctx);
    return st == CLPK_SUCCESS ? 0 : 1;
}
