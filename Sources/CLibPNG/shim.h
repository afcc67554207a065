#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// Row-by-row reading through libpng's classic API, which reports errors by
// longjmp: these functions keep every setjmp and png_* call in C, so no
// longjmp ever crosses a Swift frame. Each returns 0 on an error, with the
// reason in `message`. VitrinePNG's PNGRowReader is the only caller.

typedef struct vitrine_png_reader {
    png_structp png;
    png_infop info;
    /// The file's bytes: set again before each call, as Swift only lends them.
    const unsigned char *data;
    size_t size;
    size_t offset;
    uint32_t width;
    uint32_t height;
    int interlaced;
    char message[200];
} vitrine_png_reader;

static void vitrine_png_on_error(png_structp png, png_const_charp text) {
    vitrine_png_reader *reader = (vitrine_png_reader *)png_get_error_ptr(png);
    snprintf(reader->message, sizeof reader->message, "%s", text);
    png_longjmp(png, 1);
}

static void vitrine_png_on_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void vitrine_png_on_read(png_structp png, png_bytep out, size_t count) {
    vitrine_png_reader *reader = (vitrine_png_reader *)png_get_io_ptr(png);
    if (count > reader->size - reader->offset) png_error(png, "the file ends early (truncated)");
    memcpy(out, reader->data + reader->offset, count);
    reader->offset += count;
}

/// Reads the header and asks for XRGB8888 rows (B, G, R, X in memory):
/// palette and low bit depths expanded, 16 bits scaled to 8, grey to RGB, a
/// file gamma converted to sRGB, as the simplified API does. Ancillary chunks
/// (text, ICC profiles) may take at most `chunk_limit` bytes each, so that a
/// compressed text chunk cannot inflate without bound.
static inline int vitrine_png_begin(vitrine_png_reader *reader, size_t chunk_limit) {
    reader->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, reader, vitrine_png_on_error, vitrine_png_on_warning);
    if (!reader->png) {
        snprintf(reader->message, sizeof reader->message, "out of memory");
        return 0;
    }
    reader->info = png_create_info_struct(reader->png);
    if (!reader->info) {
        snprintf(reader->message, sizeof reader->message, "out of memory");
        return 0;
    }
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_set_read_fn(reader->png, reader, vitrine_png_on_read);
    png_set_chunk_malloc_max(reader->png, chunk_limit);
    png_read_info(reader->png, reader->info);
    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(reader->png, reader->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    reader->width = width;
    reader->height = height;
    reader->interlaced = interlace != PNG_INTERLACE_NONE;
    png_set_expand(reader->png);
    png_set_scale_16(reader->png);
    png_set_gray_to_rgb(reader->png);
    // A gAMA chunk is honoured as browsers do: converted to sRGB. Without one
    // the data is taken as sRGB, 16-bit files too (libpng's simplified API
    // takes those as linear, which shows them brighter than a browser does).
    double file_gamma;
    if (png_get_gAMA(reader->png, reader->info, &file_gamma)) png_set_gamma(reader->png, PNG_DEFAULT_sRGB, file_gamma);
    png_set_bgr(reader->png);
    png_set_filler(reader->png, 0xFF, PNG_FILLER_AFTER);
    if (reader->interlaced) png_set_interlace_handling(reader->png);
    png_read_update_info(reader->png, reader->info);
    if (png_get_rowbytes(reader->png, reader->info) != (size_t)width * 4) {
        snprintf(reader->message, sizeof reader->message, "unexpected row size after the transforms");
        return 0;
    }
    return 1;
}

/// Reads the next `count` rows of a non-interlaced picture into `rows`
/// (`width` pixels each, one after another), X set to 0xFF.
static inline int vitrine_png_read_rows(vitrine_png_reader *reader, uint32_t *rows, uint32_t count) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    for (uint32_t row = 0; row < count; row++) {
        png_read_row(reader->png, (png_bytep)(rows + (size_t)row * reader->width), NULL);
    }
    size_t pixels = (size_t)count * reader->width;
    for (size_t i = 0; i < pixels; i++) rows[i] |= 0xFF000000u;
    return 1;
}

/// Reads an interlaced picture whole (each of its passes touches every row)
/// into `pixels` (`width` × `height`), X set to 0xFF; `row_pointers` has
/// `height` entries.
static inline int vitrine_png_read_image(vitrine_png_reader *reader, uint32_t *pixels, png_bytepp row_pointers) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    for (uint32_t row = 0; row < reader->height; row++) row_pointers[row] = (png_bytep)(pixels + (size_t)row * reader->width);
    png_read_image(reader->png, row_pointers);
    size_t count = (size_t)reader->width * reader->height;
    for (size_t i = 0; i < count; i++) pixels[i] |= 0xFF000000u;
    return 1;
}

/// Reads what follows the image data (CRCs, text after IDAT), so that a
/// damaged end of file is an error too.
static inline int vitrine_png_finish(vitrine_png_reader *reader) {
    if (setjmp(png_jmpbuf(reader->png))) return 0;
    png_read_end(reader->png, NULL);
    return 1;
}

static inline void vitrine_png_free(vitrine_png_reader *reader) {
    if (reader->png) png_destroy_read_struct(&reader->png, reader->info ? &reader->info : NULL, NULL);
    reader->png = NULL;
    reader->info = NULL;
}
