// The section bounds are declared in the header; this file gives the target its one C source.
#include "CRegistry.h"
