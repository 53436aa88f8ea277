#include <spng.h>
// zlib: libspng's own inflater, used directly for the image data of 8-bit RGB and RGBA pictures (PNG.swift).
#include <zlib.h>
// libdeflate: inflates that image data at once, five times faster than zlib (PNG.swift); libtiff needs it too.
#include <libdeflate.h>
