// libheif's reader and decoder: heif_context_read_from_memory_without_copy,
// heif_context_get_primary_image_handle, heif_image_handle_get_width/height
// (after the file's own transforms), heif_decode_image to interleaved RGB or
// RGBA, heif_image_get_plane_readonly. libheif reports errors by value (a
// struct heif_error: code, subcode, message), never by longjmp, so Swift calls
// it directly; VitrineHEIF is the only caller. HEVC is decoded by libde265
// (linked into Debian 12's libheif1; a plugin, libheif-plugin-libde265, in
// Debian 13), AV1 by dav1d or aom.
#include <libheif/heif.h>
