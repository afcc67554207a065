#include "pixel_turn.h"

#include <string.h>

// 32 x 32 pixels: a tile's 32 source lines of 128 bytes (4 KiB) stay in
// the L1 cache of every board Vitrine runs on while the tile's columns are read.
enum { tile = 32 };

void vitrine_pixels_turn(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                         const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v) {
    if (width == 0 || height == 0) return;
    if (step_u == 1 || step_u == -1) {
        // Rows stay rows (as stored, turned 180°, mirrored): read in order, forwards or back.
        for (size_t v = 0; v < height; v++) {
            const uint32_t *from = source + origin + (ptrdiff_t)v * step_v;
            uint32_t *to = destination + v * destination_stride;
            if (step_u == 1) {
                memcpy(to, from, width * sizeof(uint32_t));
            } else {
                for (size_t u = 0; u < width; u++) to[u] = from[-(ptrdiff_t)u];
            }
        }
        return;
    }
    // Rows become columns: tile by tile.
    for (size_t v0 = 0; v0 < height; v0 += tile) {
        size_t v1 = v0 + tile < height ? v0 + tile : height;
        for (size_t u0 = 0; u0 < width; u0 += tile) {
            size_t u1 = u0 + tile < width ? u0 + tile : width;
            for (size_t v = v0; v < v1; v++) {
                const uint32_t *from = source + origin + (ptrdiff_t)u0 * step_u + (ptrdiff_t)v * step_v;
                uint32_t *to = destination + v * destination_stride + u0;
                for (size_t u = u0; u < u1; u++, from += step_u) *to++ = *from;
            }
        }
    }
}
