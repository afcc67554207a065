// libjpeg's decompressor (libjpeg62-turbo), for VitrineJPEG only.
//
// libjpeg reports a fatal error by calling error_exit, which must not return:
// the usual answer is longjmp. A longjmp must never cross Swift frames, so the
// whole decompression runs inside vitrine_jpeg_decompress below, which calls
// setjmp itself; every jump goes from libjpeg (or the callbacks here) back into
// that one C function, and Swift sees only a status and a report.
//
// Why not TurboJPEG's tjDecompress2: it keeps the text of the first warning
// only, and says "warning" whenever any warning happened, even when a fatal
// error came later. A harmless first warning (stray bytes between segments)
// then hides the damage after it. Here every warning's msg_code is recorded.
#ifndef VITRINE_CLIBJPEG_SHIM_H
#define VITRINE_CLIBJPEG_SHIM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include <jpeglib.h>
#include <jerror.h>

/// How many warnings a report keeps: every one of the first half, then the first of
/// each code not kept yet. jerror.h has about a dozen warning codes, so however many
/// warnings a file brings (an MJPEG frame can bring one per restart interval), the
/// first warning of every code is kept.
#define VITRINE_JPEG_MAX_WARNINGS 32
/// libjpeg-turbo's own limit in TurboJPEG (TJFLAG_LIMITSCANS): a crafted progressive
/// file can otherwise keep the decoder busy for minutes on a tiny picture.
#define VITRINE_JPEG_MAX_SCANS 500

/// One message from libjpeg: its J_MESSAGE_CODE, its first two integer
/// parameters (for JWRN_EXTRANEOUS_DATA: the byte count and the marker), and its text.
typedef struct {
    int code;
    int parameter0;
    int parameter1;
    char text[JMSG_LENGTH_MAX];
} vitrine_jpeg_message;

/// What libjpeg said while decoding one picture.
typedef struct {
    /// The warnings kept (emit_message with level -1), in order: warning_count of them.
    vitrine_jpeg_message warnings[VITRINE_JPEG_MAX_WARNINGS];
    int warning_count;
    /// Every warning, kept or not.
    int warnings_emitted;
    /// The fatal error (error_exit), when failed is 1.
    int failed;
    vitrine_jpeg_message fatal;
    /// The decode was stopped at VITRINE_JPEG_MAX_SCANS progressive scans.
    int too_many_scans;
    /// libjpeg's output size and components, to check against what the caller expected.
    int output_width;
    int output_height;
    int output_components;
} vitrine_jpeg_report;

/// Where vitrine_jpeg_decompress reads a JPEG from: `size` bytes at `data`
/// when `fd` is negative; otherwise the open file `fd`, read `capacity` bytes at
/// a time into `buffer`, whose first `prefilled` bytes were already read from
/// the start of the file (the marker scan's look at the headers).
typedef struct {
    const unsigned char *data;
    unsigned long size;
    int fd;
    unsigned char *buffer;
    size_t capacity;
    size_t prefilled;
    /// Out: the errno of a read(2) that failed, else 0. The decode then ends as
    /// at the end of the file, and the caller reports the read error instead.
    int read_errno;
} vitrine_jpeg_input;

/// A decompress object with its error, progress and source managers; created
/// once per decoder, reused for every picture (jpeg_abort_decompress between failures).
typedef struct {
    struct jpeg_error_mgr error;  // first: libjpeg's err pointer is cast back to the session
    jmp_buf jump;
    struct jpeg_progress_mgr progress;
    struct jpeg_source_mgr source;
    vitrine_jpeg_input *input;
    struct jpeg_decompress_struct info;
    vitrine_jpeg_report *report;
} vitrine_jpeg_session;

static inline void vitrine_jpeg_record(j_common_ptr cinfo, vitrine_jpeg_message *message) {
    message->code = cinfo->err->msg_code;
    message->parameter0 = cinfo->err->msg_parm.i[0];
    message->parameter1 = cinfo->err->msg_parm.i[1];
    (*cinfo->err->format_message)(cinfo, message->text);
}

/// error_exit: record the error, then jump back into vitrine_jpeg_decompress.
static inline void vitrine_jpeg_error_exit(j_common_ptr cinfo) {
    vitrine_jpeg_session *session = (vitrine_jpeg_session *)cinfo->err;
    if (session->report) {
        session->report->failed = 1;
        vitrine_jpeg_record(cinfo, &session->report->fatal);
    }
    longjmp(session->jump, 1);
}

/// emit_message: record every warning (libjpeg's default prints only the first
/// one unless trace_level >= 3), as VITRINE_JPEG_MAX_WARNINGS says; ignore trace
/// messages (level >= 0).
static inline void vitrine_jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level >= 0) return;
    vitrine_jpeg_session *session = (vitrine_jpeg_session *)cinfo->err;
    cinfo->err->num_warnings++;
    vitrine_jpeg_report *report = session->report;
    if (!report) return;
    report->warnings_emitted++;
    int kept = report->warning_count;
    if (kept == VITRINE_JPEG_MAX_WARNINGS) return;
    if (kept >= VITRINE_JPEG_MAX_WARNINGS / 2) {
        for (int i = 0; i < kept; i++) {
            if (report->warnings[i].code == cinfo->err->msg_code) return;
        }
    }
    vitrine_jpeg_record(cinfo, &report->warnings[kept]);
    report->warning_count++;
}

static inline void vitrine_jpeg_output_message(j_common_ptr cinfo) {
    (void)cinfo;  // never print to stderr: everything goes into the report
}

static inline void vitrine_jpeg_progress(j_common_ptr cinfo) {
    if (!cinfo->is_decompressor) return;
    if (((j_decompress_ptr)cinfo)->input_scan_number > VITRINE_JPEG_MAX_SCANS) {
        vitrine_jpeg_session *session = (vitrine_jpeg_session *)cinfo->err;
        if (session->report) session->report->too_many_scans = 1;
        longjmp(session->jump, 1);
    }
}

static inline vitrine_jpeg_session *vitrine_jpeg_session_of(j_decompress_ptr info) {
    return (vitrine_jpeg_session *)info->err;
}

static inline void vitrine_jpeg_init_source(j_decompress_ptr info) { (void)info; }
static inline void vitrine_jpeg_term_source(j_decompress_ptr info) { (void)info; }

/// fill_input_buffer: the next `capacity` bytes of a file; at the end of the
/// data, as jpeg_mem_src and jpeg_stdio_src do, a warning (JWRN_JPEG_EOF,
/// which LibJPEGReport calls truncation) and a fake EOI so libjpeg ends cleanly.
static inline boolean vitrine_jpeg_fill_input_buffer(j_decompress_ptr info) {
    static const JOCTET end_of_image[2] = {0xFF, JPEG_EOI};
    vitrine_jpeg_input *input = vitrine_jpeg_session_of(info)->input;
    if (input->fd >= 0 && input->read_errno == 0) {
        ssize_t count;
        do {
            count = read(input->fd, input->buffer, input->capacity);
        } while (count < 0 && errno == EINTR);
        if (count > 0) {
            info->src->next_input_byte = input->buffer;
            info->src->bytes_in_buffer = (size_t)count;
            return TRUE;
        }
        if (count < 0) input->read_errno = errno;
    }
    WARNMS(info, JWRN_JPEG_EOF);
    info->src->next_input_byte = end_of_image;
    info->src->bytes_in_buffer = 2;
    return TRUE;
}

/// skip_input_data, as libjpeg's own sources do it: through fill_input_buffer.
static inline void vitrine_jpeg_skip_input_data(j_decompress_ptr info, long count) {
    if (count <= 0) return;
    while (count > (long)info->src->bytes_in_buffer) {
        count -= (long)info->src->bytes_in_buffer;
        (void)vitrine_jpeg_fill_input_buffer(info);
    }
    info->src->next_input_byte += (size_t)count;
    info->src->bytes_in_buffer -= (size_t)count;
}

/// A decompress object ready for vitrine_jpeg_decompress (jpeg_create_decompress),
/// or NULL with the reason in `message` (JMSG_LENGTH_MAX bytes).
static inline vitrine_jpeg_session *vitrine_jpeg_create(char *message) {
    // volatile: read again after the jump (never changed, but the compiler cannot know that).
    vitrine_jpeg_session *volatile session = (vitrine_jpeg_session *)calloc(1, sizeof(vitrine_jpeg_session));
    if (!session) {
        snprintf(message, JMSG_LENGTH_MAX, "out of memory");
        return NULL;
    }
    session->info.err = jpeg_std_error(&session->error);
    session->error.error_exit = vitrine_jpeg_error_exit;
    session->error.emit_message = vitrine_jpeg_emit_message;
    session->error.output_message = vitrine_jpeg_output_message;
    session->progress.progress_monitor = vitrine_jpeg_progress;
    if (setjmp(session->jump)) {
        // No report is set yet: format the error here.
        (*session->error.format_message)((j_common_ptr)&session->info, message);
        jpeg_destroy_decompress(&session->info);
        free(session);
        return NULL;
    }
    jpeg_create_decompress(&session->info);
    session->info.progress = &session->progress;
    // One source manager for memory and files alike: jpeg_mem_src refuses a
    // decompress object that ever had another kind of source.
    session->source.init_source = vitrine_jpeg_init_source;
    session->source.fill_input_buffer = vitrine_jpeg_fill_input_buffer;
    session->source.skip_input_data = vitrine_jpeg_skip_input_data;
    session->source.resync_to_restart = jpeg_resync_to_restart;
    session->source.term_source = vitrine_jpeg_term_source;
    session->info.src = &session->source;
    return session;
}

/// Frees the decompress object (jpeg_destroy_decompress).
static inline void vitrine_jpeg_destroy(vitrine_jpeg_session *session) {
    if (!session) return;
    jpeg_destroy_decompress(&session->info);
    free(session);
}

/// Receives decoded rows `first_row ..< first_row + count`, packed `row_bytes`
/// apart at `rows`, which are valid until it returns.
typedef void (*vitrine_jpeg_rows_ready)(void *context, const unsigned char *rows, unsigned int first_row,
                                        unsigned int count);

/// Decodes the JPEG `input` names (jpeg_read_header,
/// jpeg_start_decompress, jpeg_read_scanlines, jpeg_finish_decompress) at
/// scale_num/scale_denom into `width` x `height` pixels: JCS_CMYK when `cmyk`
/// is nonzero, else JCS_EXT_BGRX (XRGB8888 in little-endian memory). The
/// trailing markers up to EOI are read too, so an error after the last
/// scanline is still reported.
///
/// `output` holds `strip_rows` rows, `row_bytes` apart. Without `rows_ready`
/// it is the whole picture (`strip_rows` is `height`). With it, it is a strip
/// reused from the top: each time it is full, and at the end, `rows_ready` gets
/// the rows in it, so the picture never exists whole in memory.
///
/// Returns 0 when libjpeg got to the end of the file (the report may still hold
/// warnings), -1 when it stopped: a fatal error (report->failed), too many
/// scans, or an output size other than `width` x `height` (nothing is written then).
/// Rows handed to `rows_ready` before an error stay handed: the caller throws
/// away what it made of them.
static inline int vitrine_jpeg_decompress(vitrine_jpeg_session *session, vitrine_jpeg_input *input,
                                          unsigned int scale_num, unsigned int scale_denom, int cmyk,
                                          unsigned char *output, size_t row_bytes, unsigned int width,
                                          unsigned int height, unsigned int strip_rows,
                                          vitrine_jpeg_rows_ready rows_ready, void *context,
                                          vitrine_jpeg_report *report) {
    // Only `session` and its heap memory are used after a jump: no local that
    // changes after setjmp is read again (C11 7.13.2.1).
    j_decompress_ptr info = &session->info;
    memset(report, 0, sizeof(*report));
    session->report = report;
    session->error.num_warnings = 0;
    if (setjmp(session->jump)) {
        jpeg_abort_decompress(info);
        session->report = NULL;
        return -1;
    }
    input->read_errno = 0;
    session->input = input;
    if (input->fd >= 0) {
        session->source.next_input_byte = input->buffer;
        session->source.bytes_in_buffer = input->prefilled;
    } else {
        session->source.next_input_byte = input->data;
        session->source.bytes_in_buffer = input->size;
    }
    jpeg_read_header(info, TRUE);
    info->scale_num = scale_num;
    info->scale_denom = scale_denom;
    info->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_BGRX;
    jpeg_calc_output_dimensions(info);
    report->output_width = (int)info->output_width;
    report->output_height = (int)info->output_height;
    report->output_components = info->out_color_components;
    if (info->output_width != width || info->output_height != height || info->out_color_components != 4 ||
        strip_rows == 0 || (!rows_ready && strip_rows != height)) {
        jpeg_abort_decompress(info);
        session->report = NULL;
        return -1;
    }
    jpeg_start_decompress(info);
    JSAMPARRAY rows = (*info->mem->alloc_small)((j_common_ptr)info, JPOOL_IMAGE, strip_rows * sizeof(JSAMPROW));
    for (unsigned int y = 0; y < strip_rows; y++) rows[y] = output + (size_t)y * row_bytes;
    while (info->output_scanline < info->output_height) {
        unsigned int first = info->output_scanline, filled = 0;
        unsigned int wanted = info->output_height - first < strip_rows ? info->output_height - first : strip_rows;
        while (filled < wanted) {
            // Our source never suspends (fill_input_buffer always returns TRUE); 0 rows would mean it did.
            JDIMENSION got = jpeg_read_scanlines(info, rows + filled, wanted - filled);
            if (got == 0) ERREXIT(info, JERR_CANT_SUSPEND);
            filled += got;
        }
        // The callback runs between libjpeg calls and must not call libjpeg:
        // a longjmp can then never unwind through its (Swift) frames.
        if (rows_ready) rows_ready(context, output, first, filled);
    }
    jpeg_finish_decompress(info);
    session->report = NULL;
    return 0;
}

#endif
