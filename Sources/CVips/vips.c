#include "CVips.h"
#include <dlfcn.h>
#include <stdio.h>

/* The libvips ABI as Skylift uses it: opaque pointers, gboolean as int, GType as unsigned long. These are the
   functions' real signatures (vips 8.x, GLib 2.x); a mismatch would be a wrong call, so keep them exact. */
enum { VIPS_ACCESS_SEQUENTIAL = 1, GLIB_TRUE = 1 };

static struct {
    int (*init)(const char *);
    void (*cache_set_max)(int);
    void (*cache_set_max_mem)(size_t);
    void (*concurrency_set)(int);
    void (*block_untrusted_set)(int);
    void (*operation_block_set)(const char *, int);
    const char *(*error_buffer)(void);
    void (*error_clear)(void);
    void (*thread_shutdown)(void);
    SkyliftVipsSource *(*source_new_from_descriptor)(int);
    int (*image_get_width)(const SkyliftVipsImage *);
    int (*image_get_height)(const SkyliftVipsImage *);
    unsigned long (*image_get_typeof)(const SkyliftVipsImage *, const char *);
    int (*image_get_string)(const SkyliftVipsImage *, const char *, const char **);
    int (*image_hasalpha)(SkyliftVipsImage *);
    int (*thumbnail_source)(SkyliftVipsSource *, SkyliftVipsImage **, int, ...);
    int (*thumbnail_buffer)(void *, size_t, SkyliftVipsImage **, int, ...);
    SkyliftVipsImage *(*image_new_from_source)(SkyliftVipsSource *, const char *, ...);
    int (*flatten)(SkyliftVipsImage *, SkyliftVipsImage **, ...);
    void *(*array_double_new)(const double *, int);
    void (*area_unref)(void *);
    int (*jpegsave_buffer)(SkyliftVipsImage *, void **, size_t *, ...);
    void (*object_unref)(void *);
    void (*free)(void *);
} vips;

/* The sonames tried, newest ABI first: Debian 12 ships libvips.so.42; a development package adds the plain name. */
static const char *const library_names[] = {"libvips.so.42", "libvips.so", "libvips.42.dylib"};

static int find(void *library, void **slot, const char *symbol, char *error, size_t size) {
    *slot = dlsym(library, symbol);
    if (*slot) return 0;
    snprintf(error, size, "libvips has no %s", symbol);
    return -1;
}

int skylift_vips_load(char *error, size_t size) {
    void *library = NULL;
    char first[256] = "libvips.so.42 not found";
    for (size_t i = 0; i < sizeof library_names / sizeof library_names[0] && !library; i++) {
        library = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
        const char *why = library ? NULL : dlerror();
        if (i == 0 && why) snprintf(first, sizeof first, "%s", why);
    }
    if (!library) {
        snprintf(error, size, "%s (Debian's libvips42 package provides it)", first);
        return -1;
    }
    struct { void **slot; const char *symbol; } table[] = {
        {(void **)&vips.init, "vips_init"},
        {(void **)&vips.cache_set_max, "vips_cache_set_max"},
        {(void **)&vips.cache_set_max_mem, "vips_cache_set_max_mem"},
        {(void **)&vips.concurrency_set, "vips_concurrency_set"},
        {(void **)&vips.block_untrusted_set, "vips_block_untrusted_set"},
        {(void **)&vips.operation_block_set, "vips_operation_block_set"},
        {(void **)&vips.error_buffer, "vips_error_buffer"},
        {(void **)&vips.error_clear, "vips_error_clear"},
        {(void **)&vips.thread_shutdown, "vips_thread_shutdown"},
        {(void **)&vips.source_new_from_descriptor, "vips_source_new_from_descriptor"},
        {(void **)&vips.image_get_width, "vips_image_get_width"},
        {(void **)&vips.image_get_height, "vips_image_get_height"},
        {(void **)&vips.image_get_typeof, "vips_image_get_typeof"},
        {(void **)&vips.image_get_string, "vips_image_get_string"},
        {(void **)&vips.image_hasalpha, "vips_image_hasalpha"},
        {(void **)&vips.thumbnail_source, "vips_thumbnail_source"},
        {(void **)&vips.thumbnail_buffer, "vips_thumbnail_buffer"},
        {(void **)&vips.image_new_from_source, "vips_image_new_from_source"},
        {(void **)&vips.flatten, "vips_flatten"},
        {(void **)&vips.array_double_new, "vips_array_double_new"},
        {(void **)&vips.area_unref, "vips_area_unref"},
        {(void **)&vips.jpegsave_buffer, "vips_jpegsave_buffer"},
        {(void **)&vips.object_unref, "g_object_unref"},
        {(void **)&vips.free, "g_free"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (find(library, table[i].slot, table[i].symbol, error, size) != 0) return -1;
    }
    return 0;
}

int skylift_vips_init(const char *name) { return vips.init(name); }
void skylift_vips_cache_set_max(int max) { vips.cache_set_max(max); }
void skylift_vips_cache_set_max_mem(size_t max) { vips.cache_set_max_mem(max); }
void skylift_vips_concurrency_set(int concurrency) { vips.concurrency_set(concurrency); }
void skylift_vips_block_untrusted_set(int state) { vips.block_untrusted_set(state); }
void skylift_vips_operation_block_set(const char *name, int state) { vips.operation_block_set(name, state); }
const char *skylift_vips_error_buffer(void) { return vips.error_buffer(); }
void skylift_vips_error_clear(void) { vips.error_clear(); }
void skylift_vips_thread_shutdown(void) { vips.thread_shutdown(); }

SkyliftVipsSource *skylift_vips_source_new_from_descriptor(int fd) { return vips.source_new_from_descriptor(fd); }
int skylift_vips_image_get_width(const SkyliftVipsImage *image) { return vips.image_get_width(image); }
int skylift_vips_image_get_height(const SkyliftVipsImage *image) { return vips.image_get_height(image); }
int skylift_vips_image_has_field(const SkyliftVipsImage *image, const char *name) {
    return vips.image_get_typeof(image, name) != 0;
}
int skylift_vips_image_get_string(const SkyliftVipsImage *image, const char *name, const char **out) {
    return vips.image_get_string(image, name, out);
}
int skylift_vips_image_hasalpha(SkyliftVipsImage *image) { return vips.image_hasalpha(image); }

int skylift_vips_thumbnail_source(SkyliftVipsSource *source, SkyliftVipsImage **out, int size) {
    return vips.thumbnail_source(source, out, size, "height", size, NULL);
}

int skylift_vips_thumbnail_buffer(void *bytes, size_t length, SkyliftVipsImage **out, int size) {
    return vips.thumbnail_buffer(bytes, length, out, size, "height", size, NULL);
}

SkyliftVipsImage *skylift_vips_header_source(SkyliftVipsSource *source) {
    return vips.image_new_from_source(source, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int skylift_vips_flatten_white(SkyliftVipsImage *in, SkyliftVipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    void *background = vips.array_double_new(white, 3);
    int result = vips.flatten(in, out, "background", background, NULL);
    vips.area_unref(background);
    return result;
}

int skylift_vips_jpeg_buffer(SkyliftVipsImage *in, void **bytes, size_t *length, int quality) {
    return vips.jpegsave_buffer(in, bytes, length, "Q", quality, "strip", GLIB_TRUE, "optimize_coding", GLIB_TRUE, NULL);
}

void skylift_vips_unref(void *object) {
    if (object) vips.object_unref(object);
}

void skylift_vips_free(void *buffer) { vips.free(buffer); }
