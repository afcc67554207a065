// giflib's decoder, record by record: DGifOpen with a read callback over
// memory, DGifGetRecordType, DGifGetExtension/DGifGetExtensionNext,
// DGifGetImageDesc, DGifGetLine, DGifGetCode/DGifGetCodeNext, DGifCloseFile.
// giflib reports errors by return value (GIF_ERROR) and an int code
// (D_GIF_ERR_*), never by longjmp, so Swift calls it directly; VitrineGIF is
// the only caller. Debian's libgif-dev has no pkg-config file: the module map
// links libgif by name.
#include <gif_lib.h>
