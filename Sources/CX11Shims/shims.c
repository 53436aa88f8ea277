#include "CX11Shims.h"
