#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>

/// `DMA_BUF_IOCTL_SYNC` with `flags` (`DMA_BUF_SYNC_START` or `_END`, with
/// `_READ`, `_WRITE` or `_RW`): Swift cannot import the `_IOW` macro.
static inline int vitrine_dma_buf_sync(int descriptor, unsigned long long flags) {
    struct dma_buf_sync sync = { .flags = flags };
    return ioctl(descriptor, DMA_BUF_IOCTL_SYNC, &sync);
}
