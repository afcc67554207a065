// libwebp's decoder (WebPGetFeatures, WebPDecode with a WebPDecoderConfig) and
// libwebpdemux's container parser (WebPDemux, WebPDemuxGetFrame for an
// animation's first frame, WebPDemuxGetChunk for the EXIF chunk). libwebp
// reports errors by return value (VP8StatusCode), never by longjmp, so Swift
// calls it directly; VitrineWebP is the only caller.
#include <webp/decode.h>
#include <webp/demux.h>
