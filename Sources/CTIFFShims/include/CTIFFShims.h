// libtiff opened at run time. Linked, libtiff and the libraries it needs (Lerc, JBIG, LZMA, Zstandard,
// libdeflate, libjpeg) cost every start of pb about 2.5 ms, for a format few pastes use. Swift cannot write
// the function types of TIFFVGetField and the error handlers (va_list) to cast dlsym's results itself, so
// this shim opens the library and fills a table of pointers, each typed from tiffio.h. Every symbol is prefixed pbt_.
#ifndef PB_CTIFFSHIMS_H
#define PB_CTIFFSHIMS_H
#include <tiffio.h>

/// libtiff's functions used, each typed from tiffio.h.
struct pbt_tiff_functions {
    __typeof__(TIFFOpenOptionsAlloc) *TIFFOpenOptionsAlloc;
    __typeof__(TIFFOpenOptionsFree) *TIFFOpenOptionsFree;
    __typeof__(TIFFOpenOptionsSetMaxSingleMemAlloc) *TIFFOpenOptionsSetMaxSingleMemAlloc;
    __typeof__(TIFFOpenOptionsSetErrorHandlerExtR) *TIFFOpenOptionsSetErrorHandlerExtR;
    __typeof__(TIFFOpenOptionsSetWarningHandlerExtR) *TIFFOpenOptionsSetWarningHandlerExtR;
    __typeof__(TIFFClientOpenExt) *TIFFClientOpenExt;
    __typeof__(TIFFClose) *TIFFClose;
    __typeof__(TIFFVGetFieldDefaulted) *TIFFVGetFieldDefaulted;
    __typeof__(TIFFVGetField) *TIFFVGetField;
    __typeof__(TIFFVSetField) *TIFFVSetField;
    __typeof__(TIFFIsTiled) *TIFFIsTiled;
    __typeof__(TIFFScanlineSize) *TIFFScanlineSize;
    __typeof__(TIFFReadScanline) *TIFFReadScanline;
    __typeof__(TIFFWriteScanline) *TIFFWriteScanline;
    __typeof__(TIFFReadRGBAImageOriented) *TIFFReadRGBAImageOriented;
};

/// Opens libtiff.so.6 and resolves the functions, once per process (thread-safe): the table, or NULL when
/// the library or a function is missing (pbt_tiff_error says why).
const struct pbt_tiff_functions *pbt_tiff_load(void);
/// Why pbt_tiff_load failed (dlerror's message), or NULL.
const char *pbt_tiff_error(void);

#endif
