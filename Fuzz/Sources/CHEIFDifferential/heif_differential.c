// See include/heif_differential.h.
#include "heif_differential.h"

#include <libheif/heif.h>
#include <stdio.h>

// Set only around libheif's calls; read by the hooks on every thread.
static volatile int watching;
static size_t limit;
static size_t largest;

static void on_malloc(const volatile void *pointer, size_t size) {
    (void)pointer;
    if (!__atomic_load_n(&watching, __ATOMIC_RELAXED)) return;
    size_t seen = __atomic_load_n(&largest, __ATOMIC_RELAXED);
    while (size > seen && !__atomic_compare_exchange_n(&largest, &seen, size, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
    if (size > __atomic_load_n(&limit, __ATOMIC_RELAXED)) {
        // No allocation here (this is inside malloc): a fixed message, then the trap.
        static const char message[] = "FuzzHEIFDifferential: libheif allocated a block larger than Vitrine's declared canvas allows\n";
        fwrite(message, 1, sizeof message - 1, stderr);
        __builtin_trap();
    }
}

static void on_free(const volatile void *pointer) { (void)pointer; }

// Weak: a build without AddressSanitizer still links, and the target then
// says so when it starts (FuzzHEIFDifferential checks the result).
extern int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void *, size_t),
                                                     void (*)(const volatile void *)) __attribute__((weak));

int heif_differential_install_hooks(void) {
    if (!__sanitizer_install_malloc_and_free_hooks) return 0;
    return __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

size_t heif_differential_decode(const void *data, size_t size, size_t allocation_limit, int *decoded) {
    *decoded = 0;
    __atomic_store_n(&largest, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&limit, allocation_limit, __ATOMIC_RELAXED);
    __atomic_store_n(&watching, 1, __ATOMIC_SEQ_CST);
    struct heif_context *context = heif_context_alloc();
    if (context) {
        heif_context_set_max_decoding_threads(context, 4);
        struct heif_error error = heif_context_read_from_memory_without_copy(context, data, size, NULL);
        struct heif_image_handle *handle = NULL;
        if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(context, &handle);
        if (error.code == heif_error_Ok && handle) {
            struct heif_decoding_options *options = heif_decoding_options_alloc();
            if (options) {
                options->convert_hdr_to_8bit = 1;
                options->strict_decoding = 1;
                struct heif_image *image = NULL;
                enum heif_chroma chroma = heif_image_handle_has_alpha_channel(handle) ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB;
                error = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, options);
                if (error.code == heif_error_Ok && image) {
                    *decoded = 1;
                    heif_image_release(image);
                }
                heif_decoding_options_free(options);
            }
            heif_image_handle_release(handle);
        }
        heif_context_free(context);
    }
    __atomic_store_n(&watching, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&largest, __ATOMIC_RELAXED);
}
