/* Buffer fill for the regions NVIDIA's clEnqueueFillBuffer faults on (those reaching past 2^31 bytes; core_fill in
 * lib/core/fill.c): units first_unit .. first_unit + n_units - 1 of unit_bytes (1, 2, 4 or 8) bytes each get the
 * pattern's first unit_bytes bytes. The pattern comes as bytes and is stored as bytes reinterpreted (as_*), never
 * through a float, so a NaN pattern is copied bit for bit. Indices are 64-bit and the loop is grid-stride: the launch
 * stays small whatever the region. */
__kernel void clpk_fill_pattern(__global uchar *buf, ulong first_unit, ulong n_units, uchar8 pattern, uint unit_bytes) {
    const ulong step = get_global_size(0);
    const ulong start = get_global_id(0);
    if (unit_bytes == 8) {
        __global ulong *p = (__global ulong *)buf + first_unit;
        const ulong v = as_ulong(pattern);
        for (ulong i = start; i < n_units; i += step)
            p[i] = v;
    } else if (unit_bytes == 4) {
        __global uint *p = (__global uint *)buf + first_unit;
        const uint v = as_uint(pattern.s0123);
        for (ulong i = start; i < n_units; i += step)
            p[i] = v;
    } else if (unit_bytes == 2) {
        __global ushort *p = (__global ushort *)buf + first_unit;
        const ushort v = as_ushort(pattern.s01);
        for (ulong i = start; i < n_units; i += step)
            p[i] = v;
    } else {
        __global uchar *p = buf + first_unit;
        const uchar v = pattern.s0;
        for (ulong i = start; i < n_units; i += step)
            p[i] = v;
    }
}
