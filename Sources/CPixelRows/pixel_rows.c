#include "pixel_rows.h"

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

// Decided once, before main, so no thread ever races to set it.
static int cpu_has_avx2;

__attribute__((constructor))
static void detect_cpu(void) {
    __builtin_cpu_init();
    cpu_has_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
}

static inline int has_avx2(void) { return cpu_has_avx2; }

void vitrine_rows_copy(uint32_t *destination, const uint32_t *source, size_t count) {
    if (has_avx2()) copy_avx2(destination, source, count); else copy_sse2(destination, source, count);
}

void vitrine_rows_blend(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha256) {
    if (has_avx2()) blend_avx2(destination, top, bottom, count, alpha256); else blend_sse2(destination, top, bottom, count, alpha256);
}

void vitrine_rows_filter(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                         size_t count, size_t taps, size_t last) {
    if (has_avx2()) filter_avx2(target, source, starts, weights, count, taps, last);
    else filter_portable(target, source, starts, weights, 0, count, taps, last);
}

void vitrine_rows_finish(void) { _mm_sfence(); }

const char *vitrine_rows_kernel_name(void) { return has_avx2() ? "avx2" : "sse2"; }

#else
// Other CPUs (a Raspberry Pi's arm64): memcpy, and a loop the compiler vectorises.

void vitrine_rows_copy(uint32_t *destination, const uint32_t *source, size_t count) {
    memcpy(destination, source, count * sizeof(uint32_t));
}

void vitrine_rows_blend(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count, uint32_t alpha256) {
    for (size_t i = 0; i < count; i++) destination[i] = blend_pixel(top[i], bottom[i], alpha256);
}

void vitrine_rows_filter(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                         size_t count, size_t taps, size_t last) {
    filter_portable(target, source, starts, weights, 0, count, taps, last);
}

void vitrine_rows_finish(void) {}

const char *vitrine_rows_kernel_name(void) { return "portable"; }
#endif
