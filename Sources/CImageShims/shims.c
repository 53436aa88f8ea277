// SPDX-License-Identifier: Apache-2.0
#include "CImageShims.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Opens `soname` or copies dlerror's message (thread-local, overwritten by the next dl call) into `message`.
// RTLD_LOCAL: the library's symbols stay out of the global namespace; RTLD_NOW: a missing one shows here.
// The handle is never closed: the table points into the library for the life of the process.
static void *open_library(const char *soname, char *message, size_t size) {
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(message, size, "%s", why != NULL ? why : soname);
    }
    return library;
}

enum { message_size = 256 };

// Resolves one function into the table being filled, or records which is missing and leaves it unpublished.
#define PBI_RESOLVE(name) \
    if ((table.name = (__typeof__(name) *)dlsym(library, #name)) == NULL) { \
        snprintf(message, message_size, "%s lacks %s", soname, #name); \
        return; \
    }

// One library: its table, once, failure and pbi_<lib>_load. The table is published (lib_loaded) only whole.
#define PBI_LIBRARY(lib, soname_literal, FUNCTIONS) \
    static pthread_once_t lib##_once = PTHREAD_ONCE_INIT; \
    static struct pbi_##lib lib##_table; \
    static const struct pbi_##lib *lib##_loaded; \
    static char lib##_message[message_size]; \
    static void lib##_open(void) { \
        static const char soname[] = soname_literal; \
        char *message = lib##_message; \
        struct pbi_##lib table; \
        void *library = open_library(soname, message, message_size); \
        if (library == NULL) return; \
        FUNCTIONS(PBI_RESOLVE) \
        lib##_table = table; \
        lib##_loaded = &lib##_table; \
    } \
    const struct pbi_##lib *pbi_##lib##_load(const char **failure) { \
        pthread_once(&lib##_once, lib##_open); \
        *failure = lib##_loaded == NULL ? lib##_message : NULL; \
        return lib##_loaded; \
    }

PBI_LIBRARY(spng, "libspng.so.0", PBI_SPNG_FUNCTIONS)
PBI_LIBRARY(zlib, "libz.so.1", PBI_ZLIB_FUNCTIONS)
PBI_LIBRARY(deflate, "libdeflate.so.0", PBI_DEFLATE_FUNCTIONS)
PBI_LIBRARY(turbojpeg, "libturbojpeg.so.0", PBI_TURBOJPEG_FUNCTIONS)
PBI_LIBRARY(webp, "libwebp.so.7", PBI_WEBP_FUNCTIONS)
PBI_LIBRARY(gif, "libgif.so.7", PBI_GIF_FUNCTIONS)
PBI_LIBRARY(tiff, "libtiff.so.6", PBI_TIFF_FUNCTIONS)
