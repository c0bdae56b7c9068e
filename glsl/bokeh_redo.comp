#version 460
// bokeh, after bokeh_append (one invocation): kept and overflow counts,
// the indirect dispatch of the splat pass, and that of the stable gather
// passes: one group per row when some hot spots did not fit (the kept set
// must then not depend on timing), none otherwise.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#define BOKEH_ROWS
#include "bokeh.h"

layout(binding = 0) buffer Header {
    uint total, kept, overflow, pad;
    uint groups_x, groups_y, groups_z;
    uint redo_rows, redo_one, redo_z, redo_single_x, redo_single_y, redo_single_z;
} header;

void main()
{
    uint total = header.total;
    uint kept = min(total, pc.max_spots);
    bool redo = total > pc.max_spots;
    header.kept = kept;
    header.overflow = total - kept;
    header.pad = 0u;
    header.groups_x = min(kept, 32768u);
    header.groups_y = (kept + 32767u) / 32768u;
    header.groups_z = kept > 0u ? 1u : 0u;
    header.redo_rows = redo ? pc.nrows : 0u;
    header.redo_one = 1u;
    header.redo_z = 1u;
    header.redo_single_x = redo ? 1u : 0u;
    header.redo_single_y = 1u;
    header.redo_single_z = 1u;
}
