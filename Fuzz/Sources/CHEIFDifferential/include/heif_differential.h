// libheif's side of the FuzzHEIFDifferential target (docs/fuzzing.md): the
// file read and its primary image decoded as VitrineHEIF decodes it, while
// every allocation any thread makes is watched through AddressSanitizer's
// allocator hooks, so that the fuzzer sees how large a block libheif (or a
// codec under it) asks for, whatever allocator call it uses.
#ifndef HEIF_DIFFERENTIAL_H
#define HEIF_DIFFERENTIAL_H

#include <stddef.h>

/// Installs the allocation hooks; call once, before any other thread starts.
/// Returns 0 when AddressSanitizer's hooks are not available.
int heif_differential_install_hooks(void);

/// Reads `data` with heif_context_read_from_memory and decodes its primary
/// image with heif_decode_image (interleaved RGB, or RGBA with alpha; deep
/// pictures to 8 bits; strict decoding; four decoding threads), as
/// VitrineHEIF's libheif route does. While it runs, any single allocation of
/// more than `allocation_limit` bytes traps at once, in the allocating thread,
/// so that its stack names the allocation. Returns the largest allocation
/// seen; `*decoded` is 1 when the picture decoded.
size_t heif_differential_decode(const void *data, size_t size, size_t allocation_limit, int *decoded);

#endif
