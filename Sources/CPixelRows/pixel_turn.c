#include "pixel_turn.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define VITRINE_TURN_QUADS 1
typedef __m128i quad;
static inline quad load_quad(const uint32_t *pixels) { return _mm_loadu_si128((const __m128i *)pixels); }
static inline void store_quad(uint32_t *pixels, quad value) { _mm_storeu_si128((__m128i *)pixels, value); }
static inline quad reversed_quad(quad value) { return _mm_shuffle_epi32(value, _MM_SHUFFLE(0, 1, 2, 3)); }
// Rows a, b, c, d of a 4x4 block become its columns.
static inline void transpose_quads(quad *a, quad *b, quad *c, quad *d) {
    quad ab_low = _mm_unpacklo_epi32(*a, *b), cd_low = _mm_unpacklo_epi32(*c, *d);
    quad ab_high = _mm_unpackhi_epi32(*a, *b), cd_high = _mm_unpackhi_epi32(*c, *d);
    *a = _mm_unpacklo_epi64(ab_low, cd_low);
    *b = _mm_unpackhi_epi64(ab_low, cd_low);
    *c = _mm_unpacklo_epi64(ab_high, cd_high);
    *d = _mm_unpackhi_epi64(ab_high, cd_high);
}
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#define VITRINE_TURN_QUADS 1
typedef uint32x4_t quad;
static inline quad load_quad(const uint32_t *pixels) { return vld1q_u32(pixels); }
static inline void store_quad(uint32_t *pixels, quad value) { vst1q_u32(pixels, value); }
static inline quad reversed_quad(quad value) {
    quad pairs = vrev64q_u32(value);
    return vextq_u32(pairs, pairs, 2);
}
static inline void transpose_quads(quad *a, quad *b, quad *c, quad *d) {
    uint32x4x2_t ab = vtrnq_u32(*a, *b), cd = vtrnq_u32(*c, *d);
    *a = vcombine_u32(vget_low_u32(ab.val[0]), vget_low_u32(cd.val[0]));
    *b = vcombine_u32(vget_low_u32(ab.val[1]), vget_low_u32(cd.val[1]));
    *c = vcombine_u32(vget_high_u32(ab.val[0]), vget_high_u32(cd.val[0]));
    *d = vcombine_u32(vget_high_u32(ab.val[1]), vget_high_u32(cd.val[1]));
}
#endif

// 32 x 32 pixels: a tile's 32 source lines of 128 bytes (4 KiB) stay in
// the L1 cache of every board Vitrine runs on while the tile's columns are read.
enum { tile = 32 };

// One destination pixel at a time over `u` in [u0, u1) and `v` in [v0, v1).
static void turn_pixels(uint32_t *destination, size_t destination_stride, const uint32_t *source, ptrdiff_t origin,
                        ptrdiff_t step_u, ptrdiff_t step_v, size_t u0, size_t u1, size_t v0, size_t v1) {
    for (size_t v = v0; v < v1; v++) {
        const uint32_t *from = source + origin + (ptrdiff_t)u0 * step_u + (ptrdiff_t)v * step_v;
        uint32_t *to = destination + v * destination_stride + u0;
        for (size_t u = u0; u < u1; u++, from += step_u) *to++ = *from;
    }
}

// Rows that stay rows (as stored, turned 180°, mirrored): read in order, forwards or back.
static void turn_rows(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                      const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v, int quads) {
    for (size_t v = 0; v < height; v++) {
        const uint32_t *from = source + origin + (ptrdiff_t)v * step_v;
        uint32_t *to = destination + v * destination_stride;
        if (step_u == 1) {
            memcpy(to, from, width * sizeof(uint32_t));
            continue;
        }
        size_t u = 0;
#ifdef VITRINE_TURN_QUADS
        if (quads) {
            for (; u + 4 <= width; u += 4) store_quad(to + u, reversed_quad(load_quad(from - (ptrdiff_t)u - 3)));
        }
#endif
        for (; u < width; u++) to[u] = from[-(ptrdiff_t)u];
    }
}

// Rows that become columns, tile by tile; within a tile, 4x4 blocks read as
// four quads of the source (one per destination column: step_v is ±1 here)
// and written as four quads of the destination after a transpose.
static void turn_columns(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                         const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v, int quads) {
    for (size_t v0 = 0; v0 < height; v0 += tile) {
        size_t v1 = v0 + tile < height ? v0 + tile : height;
        for (size_t u0 = 0; u0 < width; u0 += tile) {
            size_t u1 = u0 + tile < width ? u0 + tile : width;
            size_t u_quads = u0, v_quads = v0;
#ifdef VITRINE_TURN_QUADS
            if (quads) {
                u_quads = u0 + (u1 - u0) / 4 * 4;
                v_quads = v0 + (v1 - v0) / 4 * 4;
                for (size_t v = v0; v < v_quads; v += 4) {
                    for (size_t u = u0; u < u_quads; u += 4) {
                        quad column[4];
                        for (int k = 0; k < 4; k++) {
                            // Destination column u + k, rows v ... v + 3: four neighbours in one source row.
                            const uint32_t *from = source + origin + (ptrdiff_t)(u + (size_t)k) * step_u + (ptrdiff_t)v * step_v;
                            column[k] = step_v == 1 ? load_quad(from) : reversed_quad(load_quad(from - 3));
                        }
                        transpose_quads(&column[0], &column[1], &column[2], &column[3]);
                        for (size_t j = 0; j < 4; j++) store_quad(destination + (v + j) * destination_stride + u, column[j]);
                    }
                }
            }
#endif
            // What the blocks left: the tile's last columns beside them, then its last rows.
            turn_pixels(destination, destination_stride, source, origin, step_u, step_v, u_quads, u1, v0, v_quads);
            turn_pixels(destination, destination_stride, source, origin, step_u, step_v, u0, u1, v_quads, v1);
        }
    }
}

static void turn(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                 const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v, int quads) {
    if (width == 0 || height == 0) return;
    if (step_u == 1 || step_u == -1) {
        turn_rows(destination, destination_stride, width, height, source, origin, step_u, step_v, quads);
    } else {
        turn_columns(destination, destination_stride, width, height, source, origin, step_u, step_v, quads);
    }
}

void vitrine_pixels_turn(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                         const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v) {
    turn(destination, destination_stride, width, height, source, origin, step_u, step_v, 1);
}
