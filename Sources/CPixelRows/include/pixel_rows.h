// Row kernels for the compositor and the resampler: copies and blends of
// XRGB8888 rows, the resampler's horizontal pass, and the bilinear rows of
// Ken Burns pan and zoom, with an x86-64 path (SSE2, AVX2) and an aarch64
// path (Advanced SIMD, "NEON") beside plain C. On x86-64 the copies, blends
// and bilinear rows are written with non-temporal stores. Swift has no way to
// ask for those stores, and they are what makes a composed frame cost about
// one memcpy: a frame is written once and read by the display, so pulling its
// lines into the cache first (read-for-ownership) only doubles the memory
// traffic. memcpy does the same for whole frames; it cannot for the 0-7.5 KiB
// row segments of a transition.
#ifndef VITRINE_PIXEL_ROWS_H
#define VITRINE_PIXEL_ROWS_H

#include <stddef.h>
#include <stdint.h>

/// Copies `count` pixels from `source` to `destination` (not overlapping).
void vitrine_rows_copy(uint32_t *destination, const uint32_t *source, size_t count);

/// `destination[i] = top[i] over bottom[i]` at `alpha256` (0...256, 256 opaque):
/// per channel `(top * alpha + bottom * (256 - alpha)) >> 8`, X set to 0xFF,
/// exactly as `PixelBlend.blend`. `destination` may be `bottom`.
void vitrine_rows_blend(uint32_t *destination, const uint32_t *top, const uint32_t *bottom, size_t count,
                        uint32_t alpha256);

/// One row of AreaResampler's horizontal pass for at most three taps a pixel:
/// `target[x] = Σ source[starts[x] + k] · weights[k · count + x]` for k < `taps`
/// (2 or 3), each read clamped to `source[last]`; `starts` never decrease
/// (AreaResampler's taps only move along the row). Computed exactly as
/// `AreaResampler.filterRow` does (8-bit weights summing to 256, red and blue
/// in one 32-bit lane, rounding half up, X set to 0xFF). The reads are a gather
/// at data-dependent positions, which Swift cannot ask for and the portable
/// build's compiler will not vectorise.
void vitrine_rows_filter(uint32_t *target, const uint32_t *source, const int32_t *starts, const int32_t *weights,
                         size_t count, size_t taps, size_t last);

/// One output row of a bilinear resample, for Ken Burns pan and zoom:
/// `target[u]` for u < `count` samples `top` and `bottom` (two neighbouring
/// source rows, `bottom` weighted `weight256` of 256) at the 16.16 fixed-point
/// column `position + u * step`: its whole part `i` and the pixel to its right
/// (`i + 1`, clamped to `last`), weighted by the next 8 bits of the fraction
/// `f`. Per channel, with `a`, `b` from `top` and `c`, `d` from `bottom`:
/// `upper = (a * (256 - f) + b * f) >> 1`, `lower` likewise from `c`, `d`,
/// result `(upper * (256 - weight256) + lower * weight256 + 16384) >> 15`, X
/// set to 0xFF: 16-bit products then one 32-bit multiply-add per channel,
/// which every SIMD path has. The whole part of the last position must be at
/// most `last`. On x86-64 the row is written with non-temporal stores, as
/// `vitrine_rows_copy` writes: call `vitrine_rows_finish` before reading it.
void vitrine_rows_bilinear(uint32_t *target, const uint32_t *top, const uint32_t *bottom, uint32_t weight256,
                           uint32_t position, uint32_t step, size_t count, size_t last);

/// Orders the non-temporal stores before whatever follows (reading the frame,
/// handing it to the display): they are weakly ordered.
void vitrine_rows_finish(void);

/// The kernels in use: the best this CPU runs ("avx2" or "sse2" on x86-64,
/// "neon" on aarch64) unless `vitrine_rows_select` chose others.
const char *vitrine_rows_kernel_name(void);

/// How many sets of kernels this CPU can run, and their names, best first; the
/// last is always "portable", the plain C the others are checked against.
size_t vitrine_rows_path_count(void);
const char *vitrine_rows_path_name(size_t index);

/// Uses the kernels named `name` from now on (benchmarks and tests compare the
/// paths); returns 0, and changes nothing, when this CPU cannot run them.
/// Every path gives the same pixels.
int vitrine_rows_select(const char *name);

#endif
