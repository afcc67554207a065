// The pixel-row kernels of every path this CPU runs (AVX2 and SSE2 on x86-64,
// Advanced SIMD on aarch64) against the portable C, bit for bit: copies and
// blends at every length and alignment up to 70 pixels and at 1920, every
// alpha; the resampler's filter at 2 and 3 taps for ratios from 0.3x to 3x,
// rows ending inside a vector, windows and gathers. The portable kernels are
// in turn checked against a plain restatement of the formulas in
// pixel_rows.h. Built and run by Tests/PixelRows/run.sh: natively, and for
// aarch64 with the cross toolchain under qemu-aarch64.
#include "../../Sources/CPixelRows/pixel_rows.c"

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
}

int main(void) {
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
