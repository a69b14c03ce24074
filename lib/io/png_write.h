/* A minimal PNG writer for pictures of results (heat maps, quiver plots): 8-bit RGB, no filtering, deflate "stored"
 * blocks (no compression), so it needs no zlib. Internal to clpk. */
#ifndef CLPK_PNG_WRITE_H
#define CLPK_PNG_WRITE_H

#include "clpk.h"

/* Writes `rgb` (height rows of width * 3 bytes, top row first) to `path`. */
clpk_status png_write_rgb(const char *path, int width, int height, const unsigned char *rgb, clpk_error *err);

/* CRC-32 (ISO 3309, as PNG chunks use) and Adler-32 (as zlib streams use), continued from `crc` / `adler`
 * (start with 0 and 1). Exposed for the tests. */
uint32_t png_crc32(uint32_t crc, const unsigned char *data, size_t size);
uint32_t png_adler32(uint32_t adler, const unsigned char *data, size_t size);

#endif
