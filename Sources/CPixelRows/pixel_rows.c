#include "pixel_rows.h"

#include <stdatomic.h>
#include <string.h>

static inline uint32_t blend_pixel(uint32_t top, uint32_t bottom, uint32_t alpha) {
    uint32_t inverse = 256 - alpha;
    uint32_t red_blue = (((top & 0x00FF00FFu) * alpha + (bottom & 0x00FF00FFu) * inverse) >> 8) & 0x00FF00FFu;
    uint32_t green = (((top & 0x0000FF00u) * alpha + (bottom & 0x0000FF00u) * inverse) >> 8) & 0x0000FF00u;
    return 0xFF000000u | red_blue | green;
}

static inline uint32_t pack_sums(uint32_t red_blue, uint32_t green) {
    return 0xFF000000u | (((red_blue + 0x00800080u) >> 8) & 0x00FF00FFu) | (((green + 0x00008000u) >> 8) & 0x0000FF00u);
}

static void filter_portable(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                            size_t from, size_t count, size_t taps, size_t last) {
    for (size_t x = from; x < count; x++) {
        size_t start = (size_t)starts[x];
        uint32_t red_blue = 0, green = 0;
        for (size_t k = 0; k < taps; k++) {
            size_t index = start + k < last ? start + k : last;
            uint32_t pixel = source[index], weight = (uint32_t)weights[k * count + x];
            red_blue += (pixel & 0x00FF00FFu) * weight;
            green += (pixel & 0x0000FF00u) * weight;
        }
        target[x] = pack_sums(red_blue, green);
    }
}

// The portable kernels: every CPU can run them, and the others are checked against them.
static void copy_portable(uint32_t *destination, const uint32_t *source, size_t count) {
    memcpy(destination, source, count * sizeof(uint32_t));
}

static void blend_portable(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha) {
    for (size_t i = 0; i < count; i++) destination[i] = blend_pixel(top[i], bottom[i], alpha);
}

// One pixel of a bilinear row, channel by channel as pixel_rows.h states it:
// the two columns around the position in each row, then the two rows.
static inline uint32_t bilinear_pixel(const uint32_t *top, const uint32_t *bottom, uint32_t weight, uint32_t position,
                                      size_t last) {
    size_t left = position >> 16, right = left < last ? left + 1 : last;
    uint32_t fraction = (position >> 8) & 0xFFu;
    uint32_t a = top[left], b = top[right], c = bottom[left], d = bottom[right];
    uint32_t result = 0xFF000000u;
    for (uint32_t shift = 0; shift < 24; shift += 8) {
        uint32_t upper = (((a >> shift) & 0xFFu) * (256 - fraction) + ((b >> shift) & 0xFFu) * fraction) >> 1;
        uint32_t lower = (((c >> shift) & 0xFFu) * (256 - fraction) + ((d >> shift) & 0xFFu) * fraction) >> 1;
        result |= ((upper * (256 - weight) + lower * weight + 16384) >> 15) << shift;
    }
    return result;
}

// Pixels `from` to `to` of a bilinear row: the portable kernel, and the head,
// the tail and the clamped right end of the vector ones.
static void bilinear_span(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight,
                          uint32_t position, uint32_t step, size_t from, size_t to, size_t last) {
    for (size_t u = from; u < to; u++) target[u] = bilinear_pixel(top, bottom, weight, position + (uint32_t)u * step, last);
}

static void bilinear_portable(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight,
                              uint32_t position, uint32_t step, size_t count, size_t last) {
    bilinear_span(target, top, bottom, weight, position, step, 0, count, last);
}

#if defined(__x86_64__)
#include <immintrin.h>

// The head up to the first 32-byte boundary of the destination, so the
// streaming stores are aligned; the tail pixel by pixel.
static size_t aligned_head(const uint32_t *destination, size_t count, size_t alignment) {
    size_t misaligned = ((uintptr_t)destination & (alignment - 1)) / sizeof(uint32_t);
    size_t head = misaligned ? (alignment / sizeof(uint32_t) - misaligned) : 0;
    return head < count ? head : count;
}

__attribute__((target("avx2")))
static void copy_avx2(uint32_t *destination, const uint32_t *source, size_t count) {
    size_t i = aligned_head(destination, count, 32);
    for (size_t j = 0; j < i; j++) destination[j] = source[j];
    for (; i + 8 <= count; i += 8)
        _mm256_stream_si256((__m256i *)(destination + i), _mm256_loadu_si256((const __m256i *)(source + i)));
    for (; i < count; i++) destination[i] = source[i];
}

__attribute__((target("avx2")))
static void blend_avx2(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha) {
    size_t i = aligned_head(destination, count, 32);
    for (size_t j = 0; j < i; j++) destination[j] = blend_pixel(top[j], bottom[j], alpha);
    const __m256i weight = _mm256_set1_epi16((short)alpha), inverse = _mm256_set1_epi16((short)(256 - alpha));
    const __m256i zero = _mm256_setzero_si256(), opaque = _mm256_set1_epi32((int)0xFF000000u);
    for (; i + 8 <= count; i += 8) {
        __m256i t = _mm256_loadu_si256((const __m256i *)(top + i)), b = _mm256_loadu_si256((const __m256i *)(bottom + i));
        // 16-bit lanes: 255 * 256 is the largest sum, which fits.
        __m256i low = _mm256_srli_epi16(_mm256_add_epi16(_mm256_mullo_epi16(_mm256_unpacklo_epi8(t, zero), weight),
                                                         _mm256_mullo_epi16(_mm256_unpacklo_epi8(b, zero), inverse)), 8);
        __m256i high = _mm256_srli_epi16(_mm256_add_epi16(_mm256_mullo_epi16(_mm256_unpackhi_epi8(t, zero), weight),
                                                          _mm256_mullo_epi16(_mm256_unpackhi_epi8(b, zero), inverse)), 8);
        _mm256_stream_si256((__m256i *)(destination + i), _mm256_or_si256(_mm256_packus_epi16(low, high), opaque));
    }
    for (; i < count; i++) destination[i] = blend_pixel(top[i], bottom[i], alpha);
}

// Eight pixels at a time, with the same 32-bit arithmetic as the scalar code,
// so results match it to the bit. When shrinking by less than 2x, eight
// neighbouring outputs draw from at most sixteen neighbouring source pixels:
// two plain loads of that window and a lane permutation per tap then give
// every lane its pixel. Groups whose taps reach past the window (ratios near
// 2x, the end of the row) gather their pixels instead (vpgatherdd), which is
// several times slower per pixel than the permutation.
__attribute__((target("avx2")))
static void filter_avx2(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                        size_t count, size_t taps, size_t last) {
    const __m256i red_blue_mask = _mm256_set1_epi32(0x00FF00FF), green_mask = _mm256_set1_epi32(0x0000FF00);
    const __m256i red_blue_half = _mm256_set1_epi32(0x00800080), green_half = _mm256_set1_epi32(0x00008000);
    const __m256i opaque = _mm256_set1_epi32((int)0xFF000000u), one = _mm256_set1_epi32(1);
    const __m256i limit = _mm256_set1_epi32((int)last), seven = _mm256_set1_epi32(7);
    size_t x = 0;
    for (; x + 8 <= count; x += 8) {
        size_t base = (size_t)starts[x];
        __m256i index = _mm256_loadu_si256((const __m256i *)(starts + x));
        __m256i red_blue = _mm256_setzero_si256(), green = _mm256_setzero_si256();
        // Within the window: the last tap of the last lane, and the window's end, both before the row's end.
        int in_window = (size_t)starts[x + 7] + taps - 1 < base + 16 && base + 15 <= last;
        __m256i offset = _mm256_sub_epi32(index, _mm256_set1_epi32((int)base));
        __m256i low = in_window ? _mm256_loadu_si256((const __m256i *)(source + base)) : _mm256_setzero_si256();
        __m256i high = in_window ? _mm256_loadu_si256((const __m256i *)(source + base + 8)) : _mm256_setzero_si256();
        for (size_t k = 0; k < taps; k++) {
            __m256i pixel;
            if (in_window) {
                // vpermd uses the low three bits of each index; lanes at 8 and above take the high half.
                __m256i from_low = _mm256_permutevar8x32_epi32(low, offset);
                __m256i from_high = _mm256_permutevar8x32_epi32(high, offset);
                pixel = _mm256_blendv_epi8(from_low, from_high, _mm256_cmpgt_epi32(offset, seven));
                offset = _mm256_add_epi32(offset, one);
            } else {
                pixel = _mm256_i32gather_epi32((const int *)source, _mm256_min_epi32(index, limit), 4);
                index = _mm256_add_epi32(index, one);
            }
            __m256i weight = _mm256_loadu_si256((const __m256i *)(weights + k * count + x));
            red_blue = _mm256_add_epi32(red_blue, _mm256_mullo_epi32(_mm256_and_si256(pixel, red_blue_mask), weight));
            green = _mm256_add_epi32(green, _mm256_mullo_epi32(_mm256_and_si256(pixel, green_mask), weight));
        }
        red_blue = _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(red_blue, red_blue_half), 8), red_blue_mask);
        green = _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(green, green_half), 8), green_mask);
        _mm256_storeu_si256((__m256i *)(target + x), _mm256_or_si256(_mm256_or_si256(red_blue, green), opaque));
    }
    filter_portable(target, source, starts, weights, x, count, taps, last);
}

static void copy_sse2(uint32_t *destination, const uint32_t *source, size_t count) {
    size_t i = aligned_head(destination, count, 16);
    for (size_t j = 0; j < i; j++) destination[j] = source[j];
    for (; i + 4 <= count; i += 4)
        _mm_stream_si128((__m128i *)(destination + i), _mm_loadu_si128((const __m128i *)(source + i)));
    for (; i < count; i++) destination[i] = source[i];
}

static void blend_sse2(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha) {
    size_t i = aligned_head(destination, count, 16);
    for (size_t j = 0; j < i; j++) destination[j] = blend_pixel(top[j], bottom[j], alpha);
    const __m128i weight = _mm_set1_epi16((short)alpha), inverse = _mm_set1_epi16((short)(256 - alpha));
    const __m128i zero = _mm_setzero_si128(), opaque = _mm_set1_epi32((int)0xFF000000u);
    for (; i + 4 <= count; i += 4) {
        __m128i t = _mm_loadu_si128((const __m128i *)(top + i)), b = _mm_loadu_si128((const __m128i *)(bottom + i));
        __m128i low = _mm_srli_epi16(_mm_add_epi16(_mm_mullo_epi16(_mm_unpacklo_epi8(t, zero), weight),
                                                   _mm_mullo_epi16(_mm_unpacklo_epi8(b, zero), inverse)), 8);
        __m128i high = _mm_srli_epi16(_mm_add_epi16(_mm_mullo_epi16(_mm_unpackhi_epi8(t, zero), weight),
                                                    _mm_mullo_epi16(_mm_unpackhi_epi8(b, zero), inverse)), 8);
        _mm_stream_si128((__m128i *)(destination + i), _mm_or_si128(_mm_packus_epi16(low, high), opaque));
    }
    for (; i < count; i++) destination[i] = blend_pixel(top[i], bottom[i], alpha);
}

// Bilinear rows, eight pixels at a time, with the portable code's arithmetic
// (so the results match it to the bit): each channel widened to 16 bits, the
// two columns weighted by the pixel's 8-bit fraction with 16-bit multiplies
// (255 * 256 is the largest sum, which fits) and halved, then the two rows by
// one signed 16-bit multiply-add (vpmaddwd: halved sums fit in 15 bits) into
// 32 bits, rounded and narrowed. Zooms between 1x and 2x read at most sixteen
// neighbouring source pixels for eight outputs: two loads of that window per
// row and a lane permutation per column give every lane its pixels, as
// filter_avx2 does; other groups gather them. The widening, multiply-add and
// packing all stay within 128-bit lanes, so the pixels come out in order.
__attribute__((target("avx2")))
static void bilinear_avx2(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight,
                          uint32_t position, uint32_t step, size_t count, size_t last) {
    size_t u = aligned_head(target, count, 32);
    bilinear_span(target, top, bottom, weight, position, step, 0, u, last);
    const __m256i lanes = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)step));
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1), seven = _mm256_set1_epi32(7);
    const __m256i byte_mask = _mm256_set1_epi32(0xFF), whole = _mm256_set1_epi16(256);
    const __m256i rounding = _mm256_set1_epi32(16384), opaque = _mm256_set1_epi32((int)0xFF000000u);
    // (256 - weight, weight) as the two 16-bit halves of every 32-bit lane: vpmaddwd's pairs.
    const __m256i rows = _mm256_set1_epi32((int)((weight << 16) | (256 - weight)));
    for (; u + 8 <= count; u += 8) {
        uint32_t first = position + (uint32_t)u * step;
        size_t base = first >> 16, end = (first + 7 * step) >> 16;
        // The last lane's right-hand pixel must lie inside the row; from there
        // on (the clamped end of the row) the pixels are done one by one.
        if (end >= last) break;
        __m256i at = _mm256_add_epi32(_mm256_set1_epi32((int)first), lanes);
        __m256i index = _mm256_srli_epi32(at, 16);
        __m256i a, b, c, d;
        if (end + 1 < base + 16 && base + 15 <= last) {
            __m256i offset = _mm256_sub_epi32(index, _mm256_set1_epi32((int)base)), next = _mm256_add_epi32(offset, one);
            __m256i offset_high = _mm256_cmpgt_epi32(offset, seven), next_high = _mm256_cmpgt_epi32(next, seven);
            __m256i top_low = _mm256_loadu_si256((const __m256i *)(top + base));
            __m256i top_high = _mm256_loadu_si256((const __m256i *)(top + base + 8));
            __m256i bottom_low = _mm256_loadu_si256((const __m256i *)(bottom + base));
            __m256i bottom_high = _mm256_loadu_si256((const __m256i *)(bottom + base + 8));
#define VITRINE_PICK(low, high, lane, is_high) \
            _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(low, lane), _mm256_permutevar8x32_epi32(high, lane), is_high)
            a = VITRINE_PICK(top_low, top_high, offset, offset_high);
            b = VITRINE_PICK(top_low, top_high, next, next_high);
            c = VITRINE_PICK(bottom_low, bottom_high, offset, offset_high);
            d = VITRINE_PICK(bottom_low, bottom_high, next, next_high);
#undef VITRINE_PICK
        } else {
            __m256i next = _mm256_add_epi32(index, one);
            a = _mm256_i32gather_epi32((const int *)top, index, 4);
            b = _mm256_i32gather_epi32((const int *)top, next, 4);
            c = _mm256_i32gather_epi32((const int *)bottom, index, 4);
            d = _mm256_i32gather_epi32((const int *)bottom, next, 4);
        }
        // Each pixel's fraction in the four 16-bit channels of that pixel, in the
        // order unpacklo/hi_epi8 widen the pixels: 0, 1 | 4, 5 and 2, 3 | 6, 7.
        __m256i fraction = _mm256_and_si256(_mm256_srli_epi32(at, 8), byte_mask);
        __m256i pair = _mm256_or_si256(fraction, _mm256_slli_epi32(fraction, 16));
        __m256i right_low = _mm256_unpacklo_epi32(pair, pair), right_high = _mm256_unpackhi_epi32(pair, pair);
        __m256i left_low = _mm256_sub_epi16(whole, right_low), left_high = _mm256_sub_epi16(whole, right_high);
#define VITRINE_COLUMNS(p, q, half, left, right) \
        _mm256_srli_epi16(_mm256_add_epi16(_mm256_mullo_epi16(_mm256_unpack##half##_epi8(p, zero), left), \
                                           _mm256_mullo_epi16(_mm256_unpack##half##_epi8(q, zero), right)), 1)
        __m256i upper_low = VITRINE_COLUMNS(a, b, lo, left_low, right_low);
        __m256i upper_high = VITRINE_COLUMNS(a, b, hi, left_high, right_high);
        __m256i lower_low = VITRINE_COLUMNS(c, d, lo, left_low, right_low);
        __m256i lower_high = VITRINE_COLUMNS(c, d, hi, left_high, right_high);
#undef VITRINE_COLUMNS
#define VITRINE_ROWS(half, upper, lower) \
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpack##half##_epi16(upper, lower), rows), rounding), 15)
        __m256i low = _mm256_packs_epi32(VITRINE_ROWS(lo, upper_low, lower_low), VITRINE_ROWS(hi, upper_low, lower_low));
        __m256i high = _mm256_packs_epi32(VITRINE_ROWS(lo, upper_high, lower_high), VITRINE_ROWS(hi, upper_high, lower_high));
#undef VITRINE_ROWS
        _mm256_stream_si256((__m256i *)(target + u), _mm256_or_si256(_mm256_packus_epi16(low, high), opaque));
    }
    bilinear_span(target, top, bottom, weight, position, step, u, count, last);
}

// Four pixels at a time, with bilinear_avx2's arithmetic in 128-bit registers.
// SSE2 has neither a lane permutation nor a gather: each pixel and its
// right-hand neighbour come in one 64-bit load per row, and two shuffles sort
// them into the left and right columns.
static void bilinear_sse2(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight,
                          uint32_t position, uint32_t step, size_t count, size_t last) {
    size_t u = aligned_head(target, count, 16);
    bilinear_span(target, top, bottom, weight, position, step, 0, u, last);
    const __m128i zero = _mm_setzero_si128(), byte_mask = _mm_set1_epi32(0xFF), whole = _mm_set1_epi16(256);
    const __m128i rounding = _mm_set1_epi32(16384), opaque = _mm_set1_epi32((int)0xFF000000u);
    const __m128i rows = _mm_set1_epi32((int)((weight << 16) | (256 - weight)));
    for (; u + 4 <= count; u += 4) {
        uint32_t p0 = position + (uint32_t)u * step, p1 = p0 + step, p2 = p1 + step, p3 = p2 + step;
        if ((p3 >> 16) >= last) break;
#define VITRINE_PAIRS(row, p, q) \
        _mm_castsi128_ps(_mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(row + (p >> 16))), \
                                            _mm_loadl_epi64((const __m128i *)(row + (q >> 16)))))
        __m128 top01 = VITRINE_PAIRS(top, p0, p1), top23 = VITRINE_PAIRS(top, p2, p3);
        __m128 bottom01 = VITRINE_PAIRS(bottom, p0, p1), bottom23 = VITRINE_PAIRS(bottom, p2, p3);
#undef VITRINE_PAIRS
        __m128i a = _mm_castps_si128(_mm_shuffle_ps(top01, top23, _MM_SHUFFLE(2, 0, 2, 0)));
        __m128i b = _mm_castps_si128(_mm_shuffle_ps(top01, top23, _MM_SHUFFLE(3, 1, 3, 1)));
        __m128i c = _mm_castps_si128(_mm_shuffle_ps(bottom01, bottom23, _MM_SHUFFLE(2, 0, 2, 0)));
        __m128i d = _mm_castps_si128(_mm_shuffle_ps(bottom01, bottom23, _MM_SHUFFLE(3, 1, 3, 1)));
        __m128i at = _mm_setr_epi32((int)p0, (int)p1, (int)p2, (int)p3);
        __m128i fraction = _mm_and_si128(_mm_srli_epi32(at, 8), byte_mask);
        __m128i pair = _mm_or_si128(fraction, _mm_slli_epi32(fraction, 16));
        __m128i right_low = _mm_unpacklo_epi32(pair, pair), right_high = _mm_unpackhi_epi32(pair, pair);
        __m128i left_low = _mm_sub_epi16(whole, right_low), left_high = _mm_sub_epi16(whole, right_high);
#define VITRINE_COLUMNS(p, q, half, left, right) \
        _mm_srli_epi16(_mm_add_epi16(_mm_mullo_epi16(_mm_unpack##half##_epi8(p, zero), left), \
                                     _mm_mullo_epi16(_mm_unpack##half##_epi8(q, zero), right)), 1)
        __m128i upper_low = VITRINE_COLUMNS(a, b, lo, left_low, right_low);
        __m128i upper_high = VITRINE_COLUMNS(a, b, hi, left_high, right_high);
        __m128i lower_low = VITRINE_COLUMNS(c, d, lo, left_low, right_low);
        __m128i lower_high = VITRINE_COLUMNS(c, d, hi, left_high, right_high);
#undef VITRINE_COLUMNS
#define VITRINE_ROWS(half, upper, lower) \
        _mm_srli_epi32(_mm_add_epi32(_mm_madd_epi16(_mm_unpack##half##_epi16(upper, lower), rows), rounding), 15)
        __m128i low = _mm_packs_epi32(VITRINE_ROWS(lo, upper_low, lower_low), VITRINE_ROWS(hi, upper_low, lower_low));
        __m128i high = _mm_packs_epi32(VITRINE_ROWS(lo, upper_high, lower_high), VITRINE_ROWS(hi, upper_high, lower_high));
#undef VITRINE_ROWS
        _mm_stream_si128((__m128i *)(target + u), _mm_or_si128(_mm_packus_epi16(low, high), opaque));
    }
    bilinear_span(target, top, bottom, weight, position, step, u, count, last);
}

#elif defined(__aarch64__)
#include <arm_neon.h>

// Composition's copies: glibc's memcpy for aarch64 already moves 32-byte
// blocks with Advanced SIMD loads and stores (ldp/stp of q registers), and
// Cortex-A72 and A76 (Raspberry Pi 4 and 5) treat stnp only as a hint, so
// there is nothing for a copy of our own to win.
static void copy_neon(uint32_t *destination, const uint32_t *source, size_t count) {
    memcpy(destination, source, count * sizeof(uint32_t));
}

// Eight pixels at a time: each byte widened to 16 bits, multiplied by the
// weight and by its complement, summed (255 * 256 is the largest sum, which
// fits) and narrowed by the shift, which is the scalar code's arithmetic
// channel by channel, so the results match it to the bit.
static void blend_neon(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha) {
    const uint16x8_t weight = vdupq_n_u16((uint16_t)alpha), inverse = vdupq_n_u16((uint16_t)(256 - alpha));
    const uint32x4_t opaque = vdupq_n_u32(0xFF000000u);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        uint8x16_t t0 = vld1q_u8((const uint8_t *)(top + i)), t1 = vld1q_u8((const uint8_t *)(top + i + 4));
        uint8x16_t b0 = vld1q_u8((const uint8_t *)(bottom + i)), b1 = vld1q_u8((const uint8_t *)(bottom + i + 4));
#define VITRINE_BLEND_HALF(t, b, half) \
        vshrn_n_u16(vmlaq_u16(vmulq_u16(vmovl_u8(vget_##half##_u8(t)), weight), vmovl_u8(vget_##half##_u8(b)), inverse), 8)
        uint8x16_t r0 = vcombine_u8(VITRINE_BLEND_HALF(t0, b0, low), VITRINE_BLEND_HALF(t0, b0, high));
        uint8x16_t r1 = vcombine_u8(VITRINE_BLEND_HALF(t1, b1, low), VITRINE_BLEND_HALF(t1, b1, high));
#undef VITRINE_BLEND_HALF
        vst1q_u32(destination + i, vorrq_u32(vreinterpretq_u32_u8(r0), opaque));
        vst1q_u32(destination + i + 4, vorrq_u32(vreinterpretq_u32_u8(r1), opaque));
    }
    for (; i < count; i++) destination[i] = blend_pixel(top[i], bottom[i], alpha);
}

// Four pixels at a time, with the scalar code's 32-bit arithmetic (exact to
// the bit). Advanced SIMD has no gather: when four neighbouring outputs draw
// from at most eight neighbouring source pixels (shrinking by less than 2x),
// one table lookup (tbl over two q registers, 32 bytes) per tap gives every
// lane its pixel, as filter_avx2's permutation does; other groups load their
// pixels lane by lane.
static void filter_neon(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                        size_t count, size_t taps, size_t last) {
    const uint32x4_t red_blue_mask = vdupq_n_u32(0x00FF00FFu), green_mask = vdupq_n_u32(0x0000FF00u);
    const uint32x4_t red_blue_half = vdupq_n_u32(0x00800080u), green_half = vdupq_n_u32(0x00008000u);
    const uint32x4_t opaque = vdupq_n_u32(0xFF000000u);
    // Byte k of each 32-bit lane reads byte k of its pixel.
    const uint8x16_t byte_of_pixel = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    size_t x = 0;
    for (; x + 4 <= count; x += 4) {
        size_t base = (size_t)starts[x];
        uint32x4_t red_blue = vdupq_n_u32(0), green = vdupq_n_u32(0);
        int in_window = (size_t)starts[x + 3] + taps - 1 < base + 8 && base + 7 <= last;
        if (in_window) {
            uint8x16x2_t window = {{vld1q_u8((const uint8_t *)(source + base)), vld1q_u8((const uint8_t *)(source + base + 4))}};
            // Each lane's pixel offset in the window (0-7), as the byte offset 4 * offset in every byte of the lane.
            uint32x4_t offset = vsubq_u32(vreinterpretq_u32_s32(vld1q_s32(starts + x)), vdupq_n_u32((uint32_t)base));
            for (size_t k = 0; k < taps; k++) {
                uint8x16_t index = vaddq_u8(vreinterpretq_u8_u32(vmulq_n_u32(offset, 4u * 0x01010101u)), byte_of_pixel);
                uint32x4_t pixel = vreinterpretq_u32_u8(vqtbl2q_u8(window, index));
                uint32x4_t weight = vreinterpretq_u32_s32(vld1q_s32(weights + k * count + x));
                red_blue = vmlaq_u32(red_blue, vandq_u32(pixel, red_blue_mask), weight);
                green = vmlaq_u32(green, vandq_u32(pixel, green_mask), weight);
                offset = vaddq_u32(offset, vdupq_n_u32(1));
            }
        } else {
            for (size_t k = 0; k < taps; k++) {
                uint32_t lanes[4];
                for (size_t lane = 0; lane < 4; lane++) {
                    size_t index = (size_t)starts[x + lane] + k;
                    lanes[lane] = source[index < last ? index : last];
                }
                uint32x4_t pixel = vld1q_u32(lanes);
                uint32x4_t weight = vreinterpretq_u32_s32(vld1q_s32(weights + k * count + x));
                red_blue = vmlaq_u32(red_blue, vandq_u32(pixel, red_blue_mask), weight);
                green = vmlaq_u32(green, vandq_u32(pixel, green_mask), weight);
            }
        }
        red_blue = vandq_u32(vshrq_n_u32(vaddq_u32(red_blue, red_blue_half), 8), red_blue_mask);
        green = vandq_u32(vshrq_n_u32(vaddq_u32(green, green_half), 8), green_mask);
        vst1q_u32(target + x, vorrq_u32(vorrq_u32(red_blue, green), opaque));
    }
    filter_portable(target, source, starts, weights, x, count, taps, last);
}

// Bilinear rows, four pixels at a time, with the portable code's arithmetic
// (exact to the bit): each pixel and its right-hand neighbour in one 64-bit
// load per row, unzipped into the left and right columns; the columns weighted
// in 16 bits (255 * 256 fits) and halved, the rows by a widening multiply-add
// into 32 bits, and vrshrn's rounding narrow is the portable code's
// `(sum + 16384) >> 15`.
static void bilinear_neon(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight,
                          uint32_t position, uint32_t step, size_t count, size_t last) {
    const uint32x4_t opaque = vdupq_n_u32(0xFF000000u), byte_mask = vdupq_n_u32(0xFFu);
    const uint16x8_t whole = vdupq_n_u16(256);
    const uint16x4_t upper_weight = vdup_n_u16((uint16_t)(256 - weight)), lower_weight = vdup_n_u16((uint16_t)weight);
    size_t u = 0;
    for (; u + 4 <= count; u += 4) {
        uint32_t p0 = position + (uint32_t)u * step, p1 = p0 + step, p2 = p1 + step, p3 = p2 + step;
        if ((p3 >> 16) >= last) break;
        uint32x4_t top01 = vcombine_u32(vld1_u32(top + (p0 >> 16)), vld1_u32(top + (p1 >> 16)));
        uint32x4_t top23 = vcombine_u32(vld1_u32(top + (p2 >> 16)), vld1_u32(top + (p3 >> 16)));
        uint32x4_t bottom01 = vcombine_u32(vld1_u32(bottom + (p0 >> 16)), vld1_u32(bottom + (p1 >> 16)));
        uint32x4_t bottom23 = vcombine_u32(vld1_u32(bottom + (p2 >> 16)), vld1_u32(bottom + (p3 >> 16)));
        uint8x16_t a = vreinterpretq_u8_u32(vuzp1q_u32(top01, top23)), b = vreinterpretq_u8_u32(vuzp2q_u32(top01, top23));
        uint8x16_t c = vreinterpretq_u8_u32(vuzp1q_u32(bottom01, bottom23));
        uint8x16_t d = vreinterpretq_u8_u32(vuzp2q_u32(bottom01, bottom23));
        // Each pixel's fraction in the four 16-bit channels of that pixel: pixels 0, 1 and 2, 3.
        const uint32x4_t at = {p0, p1, p2, p3};
        uint32x4_t fraction = vandq_u32(vshrq_n_u32(at, 8), byte_mask);
        uint16x8_t pair = vreinterpretq_u16_u32(vorrq_u32(fraction, vshlq_n_u32(fraction, 16)));
        uint16x8_t right_low = vzip1q_u16(pair, pair), right_high = vzip2q_u16(pair, pair);
        uint16x8_t left_low = vsubq_u16(whole, right_low), left_high = vsubq_u16(whole, right_high);
#define VITRINE_COLUMNS(p, q, half, left, right) \
        vshrq_n_u16(vmlaq_u16(vmulq_u16(vmovl_u8(vget_##half##_u8(p)), left), vmovl_u8(vget_##half##_u8(q)), right), 1)
        uint16x8_t upper_low = VITRINE_COLUMNS(a, b, low, left_low, right_low);
        uint16x8_t upper_high = VITRINE_COLUMNS(a, b, high, left_high, right_high);
        uint16x8_t lower_low = VITRINE_COLUMNS(c, d, low, left_low, right_low);
        uint16x8_t lower_high = VITRINE_COLUMNS(c, d, high, left_high, right_high);
#undef VITRINE_COLUMNS
#define VITRINE_ROWS(upper, lower, half) \
        vrshrn_n_u32(vmlal_u16(vmull_u16(vget_##half##_u16(upper), upper_weight), vget_##half##_u16(lower), lower_weight), 15)
        uint8x8_t first_two = vmovn_u16(vcombine_u16(VITRINE_ROWS(upper_low, lower_low, low), VITRINE_ROWS(upper_low, lower_low, high)));
        uint8x8_t last_two = vmovn_u16(vcombine_u16(VITRINE_ROWS(upper_high, lower_high, low), VITRINE_ROWS(upper_high, lower_high, high)));
#undef VITRINE_ROWS
        vst1q_u32(target + u, vorrq_u32(vreinterpretq_u32_u8(vcombine_u8(first_two, last_two)), opaque));
    }
    bilinear_span(target, top, bottom, weight, position, step, u, count, last);
}
#endif

// Which kernels are selected. Set once before main (the constructor below),
// and again only by vitrine_rows_select (benchmarks, tests). Every path gives
// the same pixels, so a frame composed while the selection changes is still
// right; the pointer is atomic so that reading it is never a data race.
typedef struct {
    const char *name;
    void (*copy)(uint32_t *, const uint32_t *, size_t);
    void (*blend)(uint32_t *, const uint32_t *, const uint32_t *, size_t, uint32_t);
    void (*filter)(uint32_t *, const uint32_t *, const int32_t *, const int32_t *, size_t, size_t, size_t);
    void (*bilinear)(uint32_t *, const uint32_t *, const uint32_t *, uint32_t, uint32_t, uint32_t, size_t, size_t);
    void (*finish)(void);
} row_kernels;

static void filter_portable_row(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                                size_t count, size_t taps, size_t last) {
    filter_portable(target, source, starts, weights, 0, count, taps, last);
}

static void finish_nothing(void) {}

static const row_kernels portable_kernels = {
    "portable", copy_portable, blend_portable, filter_portable_row, bilinear_portable, finish_nothing};

#if defined(__x86_64__)
static void finish_sfence(void) { _mm_sfence(); }
static const row_kernels avx2_kernels = {"avx2", copy_avx2, blend_avx2, filter_avx2, bilinear_avx2, finish_sfence};
static const row_kernels sse2_kernels = {"sse2", copy_sse2, blend_sse2, filter_portable_row, bilinear_sse2, finish_sfence};
#elif defined(__aarch64__)
static const row_kernels neon_kernels = {"neon", copy_neon, blend_neon, filter_neon, bilinear_neon, finish_nothing};
#endif

// Best first; the CPU's own are those it can run.
static const row_kernels *available[3];
static size_t available_count;
static _Atomic(const row_kernels *) selected = &portable_kernels;

__attribute__((constructor))
static void detect_cpu(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) available[available_count++] = &avx2_kernels;
    available[available_count++] = &sse2_kernels;  // every x86-64 CPU has SSE2
#elif defined(__aarch64__)
    available[available_count++] = &neon_kernels;  // every ARMv8-A CPU has Advanced SIMD
#endif
    available[available_count++] = &portable_kernels;
    atomic_store_explicit(&selected, available[0], memory_order_relaxed);
}

static inline const row_kernels *kernels(void) { return atomic_load_explicit(&selected, memory_order_relaxed); }

void vitrine_rows_copy(uint32_t *destination, const uint32_t *source, size_t count) {
    kernels()->copy(destination, source, count);
}

void vitrine_rows_blend(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha256) {
    kernels()->blend(destination, top, bottom, count, alpha256);
}

void vitrine_rows_filter(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                         size_t count, size_t taps, size_t last) {
    kernels()->filter(target, source, starts, weights, count, taps, last);
}

void vitrine_rows_bilinear(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight256,
                           uint32_t position, uint32_t step, size_t count, size_t last) {
    kernels()->bilinear(target, top, bottom, weight256, position, step, count, last);
}

void vitrine_rows_finish(void) { kernels()->finish(); }

const char *vitrine_rows_kernel_name(void) { return kernels()->name; }

size_t vitrine_rows_path_count(void) { return available_count; }

const char *vitrine_rows_path_name(size_t index) { return index < available_count ? available[index]->name : NULL; }

int vitrine_rows_select(const char *name) {
    for (size_t i = 0; i < available_count; i++) {
        if (strcmp(available[i]->name, name) == 0) {
            // The non-temporal stores of the path selected before are ordered
            // before its replacement runs: its own fence, not the new one's.
            kernels()->finish();
            atomic_store_explicit(&selected, available[i], memory_order_relaxed);
            return 1;
        }
    }
    return 0;
}
