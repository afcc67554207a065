// Turning a picture by quarter turns and mirrors: what a panel mounted turned
// (`output.rotation`) costs every frame the CPU composes, and what EXIF
// orientation costs a photo once. A destination row of a quarter turn is a
// source column, so a plain loop reads one pixel from each of a thousand or
// more rows in turn: a cache line and, on a 4 KiB-page board, often a TLB
// entry per pixel. Walking the picture in tiles keeps a tile's source lines
// in the cache while its columns are read.
#ifndef VITRINE_PIXEL_TURN_H
#define VITRINE_PIXEL_TURN_H

#include <stddef.h>
#include <stdint.h>

/// Writes `width` × `height` destination pixels, rows `destination_stride`
/// pixels apart, each from the source pixel at
/// `source + origin + u * step_u + v * step_v` for destination column `u` and
/// row `v`: any of the eight turns and mirrors of a picture whose rows are
/// `source_stride` apart (`step_u` and `step_v` are each ±1 or ±stride).
/// Every pixel so addressed must lie in the source; the two must not overlap.
void vitrine_pixels_turn(uint32_t *destination, size_t destination_stride, size_t width, size_t height,
                         const uint32_t *source, ptrdiff_t origin, ptrdiff_t step_u, ptrdiff_t step_v);

#endif
