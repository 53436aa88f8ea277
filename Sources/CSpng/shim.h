#include <spng.h>
// zlib: libspng's own inflater, used directly for the image data of 8-bit RGB and RGBA pictures (PNG.swift).
#include <zlib.h>
