// SPDX-License-Identifier: Apache-2.0
// The image libraries opened at run time, on the first picture decoded or written: libspng, zlib, libdeflate,
// TurboJPEG, libwebp, giflib and libtiff. Linked, they and what they need cost every start of pb and
// pasteboardd the loader's time (about a quarter of `pb paste`'s samples) for pictures few runs touch. Each
// library is a table of the functions used, typed from its header (Swift cannot cast dlsym's results to C
// function types, nor write those of variadic or va_list functions), filled once per process by dlopen of its
// SONAME and dlsym. Every symbol is prefixed pbi_.
#ifndef PB_CIMAGESHIMS_H
#define PB_CIMAGESHIMS_H
#include <gif_lib.h>
#include <libdeflate.h>
#include <spng.h>
#include <tiffio.h>
#include <turbojpeg.h>
#include <webp/decode.h>
#include <webp/encode.h>
#include <zlib.h>

// One field per function, named as the function and typed from its declaration; never NULL in a loaded table.
#define PBI_FIELD(name) __typeof__(name) *_Nonnull name;

#define PBI_SPNG_FUNCTIONS(F) \
    F(spng_ctx_new) F(spng_ctx_free) F(spng_set_image_limits) F(spng_set_chunk_limits) F(spng_set_png_buffer) \
    F(spng_set_png_stream) F(spng_get_ihdr) F(spng_set_ihdr) F(spng_get_trns) F(spng_set_option) \
    F(spng_decoded_image_size) F(spng_decode_image) F(spng_encode_image) F(spng_strerror)
#define PBI_ZLIB_FUNCTIONS(F) F(crc32) F(zlibVersion) F(inflateInit2_) F(inflate) F(inflateEnd)
#define PBI_DEFLATE_FUNCTIONS(F) F(libdeflate_alloc_decompressor) F(libdeflate_free_decompressor) F(libdeflate_zlib_decompress)
#define PBI_TURBOJPEG_FUNCTIONS(F) \
    F(tjInitDecompress) F(tjInitCompress) F(tjDestroy) F(tjDecompressHeader3) F(tjDecompress2) F(tjCompress2) \
    F(tjBufSize) F(tjAlloc) F(tjFree) F(tjGetErrorCode) F(tjGetErrorStr2)
#define PBI_WEBP_FUNCTIONS(F) \
    F(WebPGetFeaturesInternal) F(WebPDecodeRGBAInto) F(WebPConfigInitInternal) F(WebPConfigLosslessPreset) \
    F(WebPPictureInitInternal) F(WebPPictureImportRGBA) F(WebPPictureFree) F(WebPMemoryWriterInit) \
    F(WebPMemoryWriterClear) F(WebPMemoryWrite) F(WebPEncode)
#define PBI_GIF_FUNCTIONS(F) \
    F(DGifOpen) F(DGifCloseFile) F(DGifGetRecordType) F(DGifGetExtension) F(DGifGetExtensionNext) \
    F(DGifExtensionToGCB) F(DGifGetImageDesc) F(DGifGetLine) F(GifErrorString)
#define PBI_TIFF_FUNCTIONS(F) \
    F(TIFFOpenOptionsAlloc) F(TIFFOpenOptionsFree) F(TIFFOpenOptionsSetMaxSingleMemAlloc) \
    F(TIFFOpenOptionsSetErrorHandlerExtR) F(TIFFOpenOptionsSetWarningHandlerExtR) F(TIFFClientOpenExt) F(TIFFClose) \
    F(TIFFVGetFieldDefaulted) F(TIFFVGetField) F(TIFFVSetField) F(TIFFIsTiled) F(TIFFScanlineSize) \
    F(TIFFReadScanline) F(TIFFWriteScanline) F(TIFFReadRGBAImageOriented)

/// libspng's functions used (libspng.so.0).
struct pbi_spng { PBI_SPNG_FUNCTIONS(PBI_FIELD) };
/// zlib's (libz.so.1): the stream inflater of PNG image data libdeflate refuses, and CRC-32.
struct pbi_zlib { PBI_ZLIB_FUNCTIONS(PBI_FIELD) };
/// libdeflate's (libdeflate.so.0): PNG image data inflated at once.
struct pbi_deflate { PBI_DEFLATE_FUNCTIONS(PBI_FIELD) };
/// TurboJPEG's (libturbojpeg.so.0).
struct pbi_turbojpeg { PBI_TURBOJPEG_FUNCTIONS(PBI_FIELD) };
/// libwebp's (libwebp.so.7).
struct pbi_webp { PBI_WEBP_FUNCTIONS(PBI_FIELD) };
/// giflib's (libgif.so.7).
struct pbi_gif { PBI_GIF_FUNCTIONS(PBI_FIELD) };
/// libtiff's (libtiff.so.6).
struct pbi_tiff { PBI_TIFF_FUNCTIONS(PBI_FIELD) };

// Each opens its library by its SONAME and resolves the functions once per process (thread-safe: pthread_once):
// the table, or NULL when the library or a function is missing, with why in `failure` (dlerror's message or the
// function missing, valid for the life of the process); every later call answers the same.
const struct pbi_spng *_Nullable pbi_spng_load(const char *_Nullable *_Nonnull failure);
const struct pbi_zlib *_Nullable pbi_zlib_load(const char *_Nullable *_Nonnull failure);
const struct pbi_deflate *_Nullable pbi_deflate_load(const char *_Nullable *_Nonnull failure);
const struct pbi_turbojpeg *_Nullable pbi_turbojpeg_load(const char *_Nullable *_Nonnull failure);
const struct pbi_webp *_Nullable pbi_webp_load(const char *_Nullable *_Nonnull failure);
const struct pbi_gif *_Nullable pbi_gif_load(const char *_Nullable *_Nonnull failure);
const struct pbi_tiff *_Nullable pbi_tiff_load(const char *_Nullable *_Nonnull failure);

// libwebp's inline functions, which call a versioned entry point Swift would link to: through the table instead.
static inline VP8StatusCode pbi_WebPGetFeatures(struct pbi_webp webp, const uint8_t *_Nullable data,
                                                size_t size, WebPBitstreamFeatures *_Nonnull features) {
    return webp.WebPGetFeaturesInternal(data, size, features, WEBP_DECODER_ABI_VERSION);
}
static inline int pbi_WebPConfigInit(struct pbi_webp webp, WebPConfig *_Nonnull config) {
    return webp.WebPConfigInitInternal(config, WEBP_PRESET_DEFAULT, 75.f, WEBP_ENCODER_ABI_VERSION);
}
static inline int pbi_WebPPictureInit(struct pbi_webp webp, WebPPicture *_Nonnull picture) {
    return webp.WebPPictureInitInternal(picture, WEBP_ENCODER_ABI_VERSION);
}

#endif
