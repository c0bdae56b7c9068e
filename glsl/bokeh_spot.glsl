// A hot spot of bokeh, as bokeh_append and bokeh_gather write it and bokeh_splat reads it
// (32 bytes; core/filters/bokeh.c sizes the buffer of them).
struct Spot {
    ivec2 pos;
    float coc, pad;
    vec4 colour;
};
