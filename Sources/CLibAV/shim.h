// FFmpeg's demuxers, decoders and scaler: avformat_open_input over a custom
// AVIOContext (the sandboxed video helper has no file system, only the
// descriptor the kiosk handed it), avformat_find_stream_info,
// av_find_best_stream, avcodec_send_packet / avcodec_receive_frame, and
// sws_scale to the kiosk's BGRX pixels, and av_display_rotation_get for the
// stream's display matrix. FFmpeg reports errors by value
// (negative AVERROR codes), never by longjmp, so Swift calls it directly;
// VitrineFFmpeg is the only caller. Debian 12 ships FFmpeg 5.1 and Debian 13
// ships 7.1: nothing here is outside the API both share.
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libavformat/avformat.h>
#include <libavformat/avio.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

// AVERROR and its kin are function-like macros, which Swift does not import.
static inline int vitrine_averror_eof(void) { return AVERROR_EOF; }
static inline int vitrine_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int vitrine_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int vitrine_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int vitrine_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int vitrine_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t vitrine_av_nopts_value(void) { return AV_NOPTS_VALUE; }
static inline int vitrine_avseek_size(void) { return AVSEEK_SIZE; }

// The stream's display matrix (ISO-BMFF's tkhd matrix, which phones write
// for a video filmed upright), or NULL when it has none. FFmpeg 6.1 moved a
// stream's side data into its codec parameters (av_packet_side_data_get) and
// 7.x deprecates av_stream_get_side_data, which 5.1 alone offers.
static inline const int32_t *vitrine_stream_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_MAJOR >= 61
    const AVPacketSideData *data = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (!data || data->size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!data || size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data;
#endif
}

// The AVIOContext callbacks over a plain descriptor: read(2) and lseek(2),
// which the helper's system-call filter allows. `opaque` points at the
// descriptor. They are C because FFmpeg calls them through function pointers
// with no context but `opaque`.
static inline int vitrine_avio_read(void *opaque, uint8_t *buffer, int size) {
    int descriptor = *(const int *)opaque;
    for (;;) {
        ssize_t count = read(descriptor, buffer, (size_t)size);
        if (count > 0) return (int)count;
        if (count == 0) return AVERROR_EOF;
        if (errno != EINTR) return AVERROR(errno);
    }
}

static inline int64_t vitrine_avio_seek(void *opaque, int64_t offset, int whence) {
    int descriptor = *(const int *)opaque;
    if (whence & AVSEEK_SIZE) {
        struct stat info;
        if (fstat(descriptor, &info) != 0) return AVERROR(errno);
        return (int64_t)info.st_size;
    }
    off_t position = lseek(descriptor, (off_t)offset, whence & ~AVSEEK_FORCE);
    return position < 0 ? AVERROR(errno) : (int64_t)position;
}

static inline AVIOContext *vitrine_avio_open_descriptor(int *descriptor, int bufferSize) {
    unsigned char *buffer = av_malloc((size_t)bufferSize);
    if (!buffer) return NULL;
    AVIOContext *context = avio_alloc_context(buffer, bufferSize, 0, descriptor,
                                              vitrine_avio_read, NULL, vitrine_avio_seek);
    if (!context) av_free(buffer);
    return context;
}

// avio_context_free leaves the buffer, which FFmpeg may have replaced.
static inline void vitrine_avio_close(AVIOContext **context) {
    if (!context || !*context) return;
    av_freep(&(*context)->buffer);
    avio_context_free(context);
}
