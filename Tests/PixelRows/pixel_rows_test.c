// The pixel-row kernels of every path this CPU runs (AVX2 and SSE2 on x86-64,
// Advanced SIMD on aarch64) against the portable C, bit for bit: copies and
// blends at every length and alignment up to 70 pixels and at 1920, every
// alpha; the resampler's filter at 2 and 3 taps for ratios from 0.3x to 3x,
// rows ending inside a vector, windows and gathers; Ken Burns' bilinear rows
// at every length to 70 and at 1920, four alignments, steps from 0 to 2.5
// source pixels, rows weighted 0 to 256, positions whose right-hand pixel is
// clamped to the row's end. The portable kernels are in turn checked against
// a plain restatement of the formulas in pixel_rows.h. The turns of
// pixel_turn.c, by tiles and 4x4 blocks (SSE2 on x86-64, Advanced SIMD on
// aarch64) and pixel by pixel, against the eight EXIF mappings restated, at
// sizes around a tile's and a block's, with strides. Built and run by
// Tests/PixelRows/run.sh: natively, and for aarch64 with the cross toolchain
// under qemu-aarch64.
#include "../../Sources/CPixelRows/pixel_rows.c"
#include "../../Sources/CPixelRows/pixel_turn.c"

#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint32_t random32(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 16);
}

static long failures, checks;
static void expect_equal(const char *path, const char *what, const uint32_t *got, const uint32_t *want, size_t count,
                         size_t detail1, size_t detail2) {
    checks++;
    for (size_t i = 0; i < count; i++) {
        if (got[i] != want[i]) {
            if (failures++ < 20)
                fprintf(stderr, "FAIL %s %s (%zu, %zu): pixel %zu is %08x, portable %08x\n", path, what, detail1, detail2, i,
                        got[i], want[i]);
            return;
        }
    }
}

// The formula of pixel_rows.h, channel by channel.
static uint32_t reference_blend(uint32_t top, uint32_t bottom, uint32_t alpha) {
    uint32_t result = 0xFF000000u;
    for (int shift = 0; shift < 24; shift += 8) {
        uint32_t t = (top >> shift) & 0xFF, b = (bottom >> shift) & 0xFF;
        result |= (((t * alpha + b * (256 - alpha)) >> 8) & 0xFF) << shift;
    }
    return result;
}

#define MAX_ROW 2048
static uint32_t source_a[MAX_ROW + 64], source_b[MAX_ROW + 64], out[MAX_ROW + 64], want[MAX_ROW + 64];
static int32_t starts[MAX_ROW], weights[3 * MAX_ROW];

static void fill_random(uint32_t *pixels, size_t count) {
    for (size_t i = 0; i < count; i++) pixels[i] = random32();
}

// Taps as AreaResampler makes them: for output x, the source pixels under it
// (start, start + 1, ...), 8-bit weights summing to 256, starts never decreasing.
static void make_taps(size_t source_length, size_t target_length, size_t taps) {
    double ratio = (double)source_length / (double)target_length;
    for (size_t x = 0; x < target_length; x++) {
        double centre = ((double)x + 0.5) * ratio - 0.5;
        long start = (long)centre - (taps == 3 ? 1 : 0);
        if (start < 0) start = 0;
        if ((size_t)start > source_length - 1) start = (long)source_length - 1;
        if (x > 0 && start < starts[x - 1]) start = starts[x - 1];
        starts[x] = (int32_t)start;
        int32_t left = 256;
        for (size_t k = 0; k < taps; k++) {
            int32_t w = k + 1 == taps ? left : (int32_t)(random32() % (uint32_t)(left + 1));
            weights[k * target_length + x] = w;
            left -= w;
        }
    }
}

// The bilinear formula of pixel_rows.h, channel by channel.
static uint32_t reference_bilinear(const uint32_t *top, const uint32_t *bottom, uint32_t weight, uint32_t position,
                                   size_t last) {
    size_t left = position >> 16, right = left + 1 > last ? last : left + 1;
    uint32_t fraction = (position & 0xFFFF) / 256, result = 0xFF000000u;
    for (int channel = 0; channel < 3; channel++) {
        int shift = 8 * channel;
        uint32_t upper = (((top[left] >> shift) & 0xFF) * (256 - fraction) + ((top[right] >> shift) & 0xFF) * fraction) / 2;
        uint32_t lower = (((bottom[left] >> shift) & 0xFF) * (256 - fraction) + ((bottom[right] >> shift) & 0xFF) * fraction) / 2;
        result |= ((upper * (256 - weight) + lower * weight + 16384) / 32768) << shift;
    }
    return result;
}

#define BILINEAR_ROW 8192
static uint32_t bilinear_top[BILINEAR_ROW], bilinear_bottom[BILINEAR_ROW], bilinear_out[2048 + 8], bilinear_want[2048];

// One bilinear row on the selected path against the portable one: `count`
// pixels from `position` by `step`, the row `extra` pixels longer than the
// last position needs (0: the last pixels' right-hand neighbours are clamped).
static void check_bilinear(const char *path, size_t count, size_t misalign, uint32_t position, uint32_t step,
                           uint32_t weight, size_t extra, int same_row) {
    size_t last = ((position + (uint32_t)(count ? count - 1 : 0) * step) >> 16) + extra;
    if (last + 1 > BILINEAR_ROW) return;
    fill_random(bilinear_top, last + 1);
    fill_random(bilinear_bottom, last + 1);
    const uint32_t *bottom = same_row ? bilinear_top : bilinear_bottom;
    bilinear_portable(bilinear_want, bilinear_top, bottom, weight, position, step, count, last);
    vitrine_rows_bilinear(bilinear_out + misalign, bilinear_top, bottom, weight, position, step, count, last);
    vitrine_rows_finish();
    expect_equal(path, "bilinear", bilinear_out + misalign, bilinear_want, count, count * 1000 + extra, step);
}

static void check_path(const char *path) {
    if (!vitrine_rows_select(path)) {
        fprintf(stderr, "FAIL cannot select %s\n", path);
        failures++;
        return;
    }
    // Copies and blends: every length to 70 and a 1080p row, at four destination alignments.
    size_t lengths[72];
    for (size_t n = 0; n <= 70; n++) lengths[n] = n;
    lengths[71] = 1920;
    for (size_t l = 0; l < 72; l++) {
        size_t count = lengths[l];
        for (size_t misalign = 0; misalign < 4; misalign++) {
            fill_random(source_a, count + 8);
            fill_random(source_b, count + 8);
            vitrine_rows_copy(out + misalign, source_a + 3 - misalign % 4, count);
            vitrine_rows_finish();
            expect_equal(path, "copy", out + misalign, source_a + 3 - misalign % 4, count, count, misalign);
            uint32_t alphas[] = {0, 1, 2, 127, 128, 129, 200, 254, 255, 256, random32() % 257};
            for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
                vitrine_rows_blend(out + misalign, source_a + 1, source_b + misalign, count, alphas[a]);
                vitrine_rows_finish();
                for (size_t i = 0; i < count; i++) want[i] = reference_blend(source_a[1 + i], source_b[misalign + i], alphas[a]);
                expect_equal(path, "blend", out + misalign, want, count, count, alphas[a]);
            }
        }
    }
    // In place (destination == bottom), as the compositor blends onto the canvas.
    fill_random(source_a, 1920);
    fill_random(source_b, 1920);
    for (size_t i = 0; i < 1920; i++) want[i] = reference_blend(source_a[i], source_b[i], 77);
    vitrine_rows_blend(source_b, source_a, source_b, 1920, 77);
    vitrine_rows_finish();
    expect_equal(path, "blend in place", source_b, want, 1920, 1920, 77);
    // The filter against the portable one, shrinking and enlarging.
    size_t targets[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 64, 100, 333, 640, 1280, 1920};
    double ratios[] = {0.33, 0.5, 0.75, 1.0, 1.2, 1.5, 1.9, 2.0, 2.5, 3.0};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
            size_t count = targets[t], source_length = (size_t)((double)count * ratios[r]);
            if (source_length < 1) source_length = 1;
            if (source_length > MAX_ROW) continue;
            for (size_t taps = 2; taps <= 3; taps++) {
                make_taps(source_length, count, taps);
                fill_random(source_a, source_length + 32);
                filter_portable(want, source_a, starts, weights, 0, count, taps, source_length - 1);
                vitrine_rows_filter(out, source_a, starts, weights, count, taps, source_length - 1);
                expect_equal(path, "filter", out, want, count, count * 100 + taps, source_length);
            }
        }
    }
    // Bilinear rows: zooming in (steps under one pixel) and out (to 2.5), at
    // every length to 70 and a 1080p row, four alignments of the output, rows
    // whose end clamps the last pixels' neighbours or lies well past them.
    double steps[] = {0, 0.25, 0.5, 0.8, 1.0, 1.0 / 1.25, 1.25, 1.6, 1.99, 2.0, 2.2, 2.5};
    uint32_t row_weights[] = {0, 1, 127, 128, 129, 255, 256, random32() % 257};
    for (size_t l = 0; l < 72; l++) {
        size_t count = lengths[l];
        for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
            uint32_t step = (uint32_t)(steps[s] * 65536) + (s % 3 == 2 ? random32() % 97 : 0);
            for (size_t misalign = 0; misalign < 4; misalign++) {
                uint32_t position = (uint32_t)(random32() % (40u << 16));
                uint32_t weight = row_weights[(l + s + misalign) % (sizeof row_weights / sizeof row_weights[0])];
                check_bilinear(path, count, misalign, position, step, weight, misalign % 2 ? 0 : 1 + misalign * 10, 0);
            }
        }
    }
    for (size_t w = 0; w < sizeof row_weights / sizeof row_weights[0]; w++) {
        check_bilinear(path, 1920, 1, 12345, (uint32_t)(1.17 * 65536), row_weights[w], 0, 0);
        check_bilinear(path, 1920, 2, 0, 65536, row_weights[w], 3, 1);
    }
}

// The stored pixel shown at upright (u, v) for EXIF orientation 1 ... 8 of a
// w x h picture, as ExifOrientation.storedPixel restates it.
static void stored_pixel(int orientation, size_t w, size_t h, size_t u, size_t v, size_t *x, size_t *y) {
    switch (orientation) {
    case 1: *x = u; *y = v; break;
    case 2: *x = w - 1 - u; *y = v; break;
    case 3: *x = w - 1 - u; *y = h - 1 - v; break;
    case 4: *x = u; *y = h - 1 - v; break;
    case 5: *x = v; *y = u; break;
    case 6: *x = v; *y = h - 1 - u; break;
    case 7: *x = w - 1 - v; *y = h - 1 - u; break;
    default: *x = w - 1 - v; *y = u; break;
    }
}

enum { TURN_SIDE = 80, TURN_STRIDE = 85 };
static uint32_t turn_source[TURN_SIDE * TURN_STRIDE], turn_out[TURN_SIDE * TURN_STRIDE], turn_want[TURN_SIDE * TURN_STRIDE];

static void check_turns(void) {
    static const size_t sides[] = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 36, 37, 64, 70, 80};
    size_t count = sizeof sides / sizeof sides[0];
    fill_random(turn_source, TURN_SIDE * TURN_STRIDE);
    for (int quads = 1; quads >= 0; quads--) {
        for (int orientation = 1; orientation <= 8; orientation++) {
            for (size_t i = 0; i < count; i++) {
                for (size_t j = 0; j < count; j++) {
                    size_t w = sides[i], h = sides[j], stride = TURN_STRIDE;
                    size_t width = orientation >= 5 ? h : w, height = orientation >= 5 ? w : h;
                    size_t x0, y0, x1, y1, x2, y2;
                    stored_pixel(orientation, w, h, 0, 0, &x0, &y0);
                    stored_pixel(orientation, w, h, 1, 0, &x1, &y1);
                    stored_pixel(orientation, w, h, 0, 1, &x2, &y2);
                    ptrdiff_t origin = (ptrdiff_t)(y0 * stride + x0);
                    ptrdiff_t step_u = ((ptrdiff_t)y1 - (ptrdiff_t)y0) * (ptrdiff_t)stride + ((ptrdiff_t)x1 - (ptrdiff_t)x0);
                    ptrdiff_t step_v = ((ptrdiff_t)y2 - (ptrdiff_t)y0) * (ptrdiff_t)stride + ((ptrdiff_t)x2 - (ptrdiff_t)x0);
                    // The destination's rows are `stride` apart too; what lies past its width stays as it was.
                    memset(turn_out, 0xAB, sizeof turn_out);
                    memset(turn_want, 0xAB, sizeof turn_want);
                    for (size_t v = 0; v < height; v++) {
                        for (size_t u = 0; u < width; u++) {
                            size_t x, y;
                            stored_pixel(orientation, w, h, u, v, &x, &y);
                            turn_want[v * stride + u] = turn_source[y * stride + x];
                        }
                    }
                    turn(turn_out, stride, width, height, turn_source, origin, step_u, step_v, quads);
                    char what[64];
                    snprintf(what, sizeof what, "turn %d of %zux%zu", orientation, w, h);
                    expect_equal(quads ? "turn by blocks" : "turn by pixels", what, turn_out, turn_want,
                                 TURN_SIDE * TURN_STRIDE, width, height);
                }
            }
        }
    }
}

int main(void) {
    check_turns();
    // The portable filter against the formula itself, once.
    make_taps(50, 20, 3);
    fill_random(source_a, 64);
    filter_portable(out, source_a, starts, weights, 0, 20, 3, 49);
    for (size_t x = 0; x < 20; x++) {
        uint32_t channel[3] = {0, 0, 0};
        for (size_t k = 0; k < 3; k++) {
            size_t index = (size_t)starts[x] + k > 49 ? 49 : (size_t)starts[x] + k;
            for (int c = 0; c < 3; c++) channel[c] += ((source_a[index] >> (8 * c)) & 0xFF) * (uint32_t)weights[k * 20 + x];
        }
        want[x] = 0xFF000000u;
        for (int c = 0; c < 3; c++) want[x] |= (((channel[c] + 128) >> 8) & 0xFF) << (8 * c);
    }
    expect_equal("portable", "filter formula", out, want, 20, 20, 3);
    // The portable bilinear row against its formula, and what the formula means:
    // a whole position with the top row alone is that pixel; halfway between two
    // columns and two rows is the rounded mean of the four (for even sums).
    fill_random(bilinear_top, 64);
    fill_random(bilinear_bottom, 64);
    for (uint32_t weight = 0; weight <= 256; weight += 32) {
        bilinear_portable(out, bilinear_top, bilinear_bottom, weight, 3 << 15, 40503, 40, 30);
        for (size_t u = 0; u < 40; u++) want[u] = reference_bilinear(bilinear_top, bilinear_bottom, weight, (3 << 15) + (uint32_t)u * 40503, 30);
        expect_equal("portable", "bilinear formula", out, want, 40, 40, weight);
    }
    bilinear_portable(out, bilinear_top, bilinear_bottom, 0, 5 << 16, 1 << 16, 8, 63);
    for (size_t i = 0; i < 8; i++) want[i] = bilinear_top[5 + i] | 0xFF000000u;
    expect_equal("portable", "bilinear at whole positions", out, want, 8, 8, 0);
    uint32_t corners[4] = {0x00102030, 0x00305070, 0x00204060, 0x00406080};
    bilinear_portable(out, corners, corners + 2, 128, 1 << 15, 0, 1, 1);
    want[0] = 0xFF284460;  // red (0x10 + 0x30 + 0x20 + 0x40) / 4 = 0x28, green 0x44, blue 0x60
    expect_equal("portable", "bilinear midpoint", out, want, 1, 1, 128);

    size_t paths = vitrine_rows_path_count();
    printf("pixel rows: %zu paths on this CPU (", paths);
    for (size_t i = 0; i < paths; i++) printf("%s%s", i ? ", " : "", vitrine_rows_path_name(i));
    printf(")\n");
    if (strcmp(vitrine_rows_path_name(paths - 1), "portable") != 0) {
        fprintf(stderr, "FAIL the last path is %s, not portable\n", vitrine_rows_path_name(paths - 1));
        failures++;
    }
    for (size_t i = 0; i < paths; i++) check_path(vitrine_rows_path_name(i));
    if (vitrine_rows_select("no-such-path")) {
        fprintf(stderr, "FAIL an unknown path was selected\n");
        failures++;
    }
    printf("pixel rows: %ld checks, %ld failed\n", checks, failures);
    return failures ? 1 : 0;
}
