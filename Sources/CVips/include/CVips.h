#ifndef SKYLIFT_CVIPS_H
#define SKYLIFT_CVIPS_H
#include <stddef.h>

/* libvips, opened on first use with dlopen instead of linked: a process that never makes a thumbnail does not
   load libvips and the ~90 libraries behind it (about 12 MiB of resident pages at start). Only the calls
   Skylift makes are declared, with opaque pointers; libvips takes options as NULL-terminated variadic lists,
   which Swift cannot call, so the wrappers below fix the options used. Calls other than skylift_vips_load
   must come after it returned 0. Functions returning int give 0 on success, -1 with the error buffer set. */

typedef struct SkyliftVipsImage SkyliftVipsImage;
typedef struct SkyliftVipsSource SkyliftVipsSource;

/* Opens libvips and finds every function used; 0 when all are there. Otherwise -1 and `error` (of `size`
   bytes) says what was missing. Call it once, before anything else here. */
int skylift_vips_load(char *error, size_t size);

int skylift_vips_init(const char *name);
void skylift_vips_cache_set_max(int max);
void skylift_vips_cache_set_max_mem(size_t max);
void skylift_vips_concurrency_set(int concurrency);
void skylift_vips_block_untrusted_set(int state);
void skylift_vips_operation_block_set(const char *name, int state);
const char *skylift_vips_error_buffer(void);
void skylift_vips_error_clear(void);
void skylift_vips_thread_shutdown(void);

/* A source reading the open descriptor `fd` (libvips duplicates it). */
SkyliftVipsSource *skylift_vips_source_new_from_descriptor(int fd);
int skylift_vips_image_get_width(const SkyliftVipsImage *image);
int skylift_vips_image_get_height(const SkyliftVipsImage *image);
int skylift_vips_image_has_field(const SkyliftVipsImage *image, const char *name);
int skylift_vips_image_get_string(const SkyliftVipsImage *image, const char *name, const char **out);
int skylift_vips_image_hasalpha(SkyliftVipsImage *image);

/* A thumbnail whose longer side is `size`, from a source (shrink-on-load where the format allows it; the
   EXIF orientation is applied by libvips). */
int skylift_vips_thumbnail_source(SkyliftVipsSource *source, SkyliftVipsImage **out, int size);
/* The same from an encoded image in memory (a video's poster frame as ffmpeg wrote it). */
int skylift_vips_thumbnail_buffer(void *bytes, size_t length, SkyliftVipsImage **out, int size);
/* The image's header only (size, metadata): no pixels are decoded. */
SkyliftVipsImage *skylift_vips_header_source(SkyliftVipsSource *source);
/* An image with alpha laid on white, so a transparent PNG's thumbnail is not black where it was clear. */
int skylift_vips_flatten_white(SkyliftVipsImage *in, SkyliftVipsImage **out);
/* A baseline JPEG with no metadata (the orientation is already applied), quality `quality`. */
int skylift_vips_jpeg_buffer(SkyliftVipsImage *in, void **bytes, size_t *length, int quality);

/* g_object_unref for the vips objects Swift holds (NULL is ignored), g_free for buffers libvips returned. */
void skylift_vips_unref(void *object);
void skylift_vips_free(void *buffer);
#endif
