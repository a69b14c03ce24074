/* Minimal PNG writer: signature, IHDR, one IDAT holding a zlib stream of stored deflate blocks, IEND. */
#include "png_write.h"

#include "clpk_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

uint32_t png_crc32(uint32_t crc, const unsigned char *data, size_t size) {
    crc = ~crc;
    for (size_t i = 0; i < size; ++i) {
        crc ^= data[i];
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

uint32_t png_adler32(uint32_t adler, const unsigned char *data, size_t size) {
    uint32_t a = adler & 0xFFFFu, b = adler >> 16;
    for (size_t i = 0; i < size; ++i) {
        a = (a + data[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static int write_chunk(FILE *fp, const char type[4], const unsigned char *data, size_t size) {
    unsigned char head[8], tail[4];
    put_be32(head, (uint32_t)size);
    memcpy(head + 4, type, 4);
    uint32_t crc = png_crc32(0, head + 4, 4);
    crc = png_crc32(crc, data, size);
    put_be32(tail, crc);
    return fwrite(head, 1, 8, fp) == 8 && (size == 0 || fwrite(data, 1, size, fp) == size) &&
           fwrite(tail, 1, 4, fp) == 4;
}

clpk_status png_write_rgb(const char *path, int width, int height, const unsigned char *rgb, clpk_error *err) {
    if (!path || !rgb || width < 1 || height < 1 || width > 65535 || height > 65535)
        return core_error_set(err, CLPK_ERROR_INVALID_ARGUMENT, "png: bad arguments (%dx%d)", width, height);
    /* raw scanlines: a filter byte (0 = none) before each row */
    const size_t row = (size_t)width * 3 + 1, raw_size = row * (size_t)height;
    const size_t n_blocks = (raw_size + 65534) / 65535;
    const size_t idat_size = 2 + raw_size + 5 * n_blocks + 4;
    unsigned char *raw = malloc(raw_size), *idat = malloc(idat_size);
    if (!raw || !idat) {
        free(raw), free(idat);
        return core_error_set(err, CLPK_ERROR_OUT_OF_MEMORY, "png: out of memory for %dx%d", width, height);
    }
    for (int y = 0; y < height; ++y) {
        raw[(size_t)y * row] = 0;
        memcpy(raw + (size_t)y * row + 1, rgb + (size_t)y * width * 3, (size_t)width * 3);
    }
    size_t at = 0;
    idat[at++] = 0x78, idat[at++] = 0x01; /* deflate, 32 KiB window, no dictionary; (0x7801 % 31 == 0) */
    for (size_t done = 0; done < raw_size;) {
        const size_t n = raw_size - done < 65535 ? raw_size - done : 65535;
        idat[at++] = done + n == raw_size ? 1 : 0; /* BFINAL, BTYPE = 00 (stored) */
        idat[at++] = (unsigned char)(n & 0xFF), idat[at++] = (unsigned char)(n >> 8);
        idat[at++] = (unsigned char)(~n & 0xFF), idat[at++] = (unsigned char)((~n >> 8) & 0xFF);
        memcpy(idat + at, raw + done, n);
        at += n, done += n;
    }
    put_be32(idat + at, png_adler32(1, raw, raw_size));
    at += 4;
    unsigned char ihdr[13];
    put_be32(ihdr, (uint32_t)width);
    put_be32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = 0, ihdr[11] = 0,
    ihdr[12] = 0; /* 8-bit RGB, deflate, no filter, no interlace */
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    clpk_status st = CLPK_SUCCESS;
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        st = core_error_set(err, CLPK_ERROR_IO, "png: cannot create %s: %s", path, strerror(errno));
    } else {
        int ok = fwrite(signature, 1, 8, fp) == 8 && write_chunk(fp, "IHDR", ihdr, sizeof ihdr) &&
                 write_chunk(fp, "IDAT", idat, at) && write_chunk(fp, "IEND", NULL, 0);
        if (fclose(fp) != 0) ok = 0;
        if (!ok) st = core_error_set(err, CLPK_ERROR_IO, "png: writing %s failed: %s", path, strerror(errno));
    }
    free(raw), free(idat);
    return st;
}
