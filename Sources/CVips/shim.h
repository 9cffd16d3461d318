#ifndef SKYLIFT_CVIPS_SHIM_H
#define SKYLIFT_CVIPS_SHIM_H
#include <vips/vips.h>

/* libvips takes its options as NULL-terminated variadic lists, which Swift cannot call: these wrappers
   fix the options Skylift uses. Every function returns 0 on success, -1 with vips_error_buffer() set. */

/* A thumbnail whose longer side is `size`, from a source (shrink-on-load where the format allows it; the
   EXIF orientation is applied by libvips). */
static inline int skylift_vips_thumbnail_source(VipsSource *source, VipsImage **out, int size) {
    return vips_thumbnail_source(source, out, size, "height", size, NULL);
}

/* The same from an encoded image in memory (a video's poster frame as ffmpeg wrote it). */
static inline int skylift_vips_thumbnail_buffer(void *bytes, size_t length, VipsImage **out, int size) {
    return vips_thumbnail_buffer(bytes, length, out, size, "height", size, NULL);
}

/* The image's header only (size, metadata): no pixels are decoded. */
static inline VipsImage *skylift_vips_header_source(VipsSource *source) {
    return vips_image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/* An image with alpha laid on white, so a transparent PNG's thumbnail is not black where it was clear. */
static inline int skylift_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/* A baseline JPEG with no metadata (the orientation is already applied), quality `quality`. */
static inline int skylift_vips_jpeg_buffer(VipsImage *in, void **bytes, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, bytes, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

/* g_object_unref for the vips objects Swift holds. */
static inline void skylift_vips_unref(void *object) {
    if (object) g_object_unref(object);
}
#endif
