// SPDX-License-Identifier: Apache-2.0
// What the programs would link if they linked the image libraries: every function CImageShims opens at run
// time (its PBI_*_FUNCTIONS lists), referenced so the linker records each library as needed. `make deb` links
// this probe and gives it to dpkg-shlibdeps as the source of Recommends, so the packages and their lowest
// versions come from the libraries' symbols files for the functions actually used, as Depends does for the
// programs. It is never run nor shipped.
#include "CImageShims.h"
// libXRes, which CX11Shims opens on first use to name the process of a window's client (pbx_client_pid).
#include <X11/Xlib.h>
#include <X11/extensions/XRes.h>

#define PBI_PROBE_USE(name) (const void *)&name,

const void *const pbi_probe_functions[] = {
    PBI_SPNG_FUNCTIONS(PBI_PROBE_USE)
    PBI_ZLIB_FUNCTIONS(PBI_PROBE_USE)
    PBI_DEFLATE_FUNCTIONS(PBI_PROBE_USE)
    PBI_TURBOJPEG_FUNCTIONS(PBI_PROBE_USE)
    PBI_WEBP_FUNCTIONS(PBI_PROBE_USE)
    PBI_GIF_FUNCTIONS(PBI_PROBE_USE)
    PBI_TIFF_FUNCTIONS(PBI_PROBE_USE)
    (const void *)&XResQueryExtension, (const void *)&XResQueryVersion, (const void *)&XResQueryClientIds,
    (const void *)&XResGetClientPid, (const void *)&XResClientIdsDestroy,
};

int main(void) { return pbi_probe_functions[0] == 0; }
