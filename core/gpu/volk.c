/* volk's loader, compiled once into the GPU layer: volk.h's implementation mode includes
 * volk.c from wherever the package installed it, so no path is written here. */
#define VOLK_IMPLEMENTATION
#include <volk.h>
