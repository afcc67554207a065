#include <ft2build.h>
#include FT_FREETYPE_H

// FreeType's flags and tests are macros the Swift importer cannot take
// (shifts, casts, macros of macros): VitrineFreeType's FontFace, the only
// caller, uses these instead.

static inline FT_Int32 vitrine_ft_load_render(void) { return FT_LOAD_RENDER; }
static inline int vitrine_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }
static inline int vitrine_ft_pixel_mode_is_gray(const FT_Bitmap *bitmap) { return bitmap->pixel_mode == FT_PIXEL_MODE_GRAY; }

/// FreeType's message for an error code. Debian builds FreeType without
/// FT_CONFIG_OPTION_ERROR_STRINGS, so FT_Error_String returns NULL there;
/// this is the table fterrors.h documents for building one's own.
static inline const char *vitrine_ft_error_message(FT_Error code) {
#undef FTERRORS_H_
#define FT_ERRORDEF(e, v, s) case v: return s;
#define FT_ERROR_START_LIST switch (code) {
#define FT_ERROR_END_LIST }
#include FT_ERRORS_H
    return "unknown error";
}
