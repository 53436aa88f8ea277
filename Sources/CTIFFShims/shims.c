#include "CTIFFShims.h"
#include <dlfcn.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct pbt_tiff_functions table;
static const struct pbt_tiff_functions *loaded;
static const char *failure;

// Resolves one function into the table, or records why not.
#define PBT_RESOLVE(name) \
    if ((table.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) { failure = "libtiff.so.6 lacks " #name; return; }

static void load(void) {
    // RTLD_LOCAL: libtiff's symbols stay out of the global namespace; RTLD_NOW: a missing one shows here.
    void *library = dlopen("libtiff.so.6", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        failure = dlerror();
        return;
    }
    PBT_RESOLVE(TIFFOpenOptionsAlloc)
    PBT_RESOLVE(TIFFOpenOptionsFree)
    PBT_RESOLVE(TIFFOpenOptionsSetMaxSingleMemAlloc)
    PBT_RESOLVE(TIFFOpenOptionsSetErrorHandlerExtR)
    PBT_RESOLVE(TIFFOpenOptionsSetWarningHandlerExtR)
    PBT_RESOLVE(TIFFClientOpenExt)
    PBT_RESOLVE(TIFFClose)
    PBT_RESOLVE(TIFFVGetFieldDefaulted)
    PBT_RESOLVE(TIFFVGetField)
    PBT_RESOLVE(TIFFVSetField)
    PBT_RESOLVE(TIFFIsTiled)
    PBT_RESOLVE(TIFFScanlineSize)
    PBT_RESOLVE(TIFFReadScanline)
    PBT_RESOLVE(TIFFWriteScanline)
    PBT_RESOLVE(TIFFReadRGBAImageOriented)
    loaded = &table;
}

const struct pbt_tiff_functions *pbt_tiff_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *pbt_tiff_error(void) {
    return failure;
}
