#ifndef SKYLIFT_CCURL_SHIM_H
#define SKYLIFT_CCURL_SHIM_H
#include <curl/curl.h>
#include <stdint.h>
#include <sys/socket.h>
/* curl_easy_setopt / curl_easy_getinfo are variadic, which Swift cannot call: typed wrappers go here. */
static inline CURLcode skylift_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

/* Callback setters: a function pointer passed through `...` needs its exact type on the C side. */
typedef size_t (*skylift_curl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*skylift_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                              curl_off_t ultotal, curl_off_t ulnow);
typedef int (*skylift_curl_seek_callback)(void *context, curl_off_t offset, int origin);

static inline CURLcode skylift_curl_set_write_callback(CURL *h, skylift_curl_data_callback f) {
    return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode skylift_curl_set_header_callback(CURL *h, skylift_curl_data_callback f) {
    return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
static inline CURLcode skylift_curl_set_read_callback(CURL *h, skylift_curl_data_callback f) {
    return curl_easy_setopt(h, CURLOPT_READFUNCTION, f);
}
static inline CURLcode skylift_curl_set_xferinfo_callback(CURL *h, skylift_curl_xferinfo_callback f) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}
static inline CURLcode skylift_curl_set_seek_callback(CURL *h, skylift_curl_seek_callback f) {
    return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, f);
}

/* Caps the kernel's receive buffer (SO_RCVBUF, set before connect) of each connection curl opens for the handle:
   what the kernel holds ahead of a slow reader is lost when the process dies, and Linux lets it grow to
   tcp_rmem's maximum. The size travels as the callback's data pointer; 0 leaves the kernel's autotuning alone. */
static int skylift_curl_receive_window_callback(void *bytes, curl_socket_t fd, curlsocktype purpose) {
    int size = (int)(intptr_t)bytes;
    if (purpose == CURLSOCKTYPE_IPCXN && size > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    return CURL_SOCKOPT_OK;
}
static inline CURLcode skylift_curl_set_receive_window(CURL *h, long bytes) {
    curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, bytes > 0 ? skylift_curl_receive_window_callback : NULL);
    return curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, (void *)(intptr_t)bytes);
}

static inline CURLcode skylift_curl_get_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }

/* Macros Swift does not import as constants of the right type. */
static const size_t skylift_curl_readfunc_abort = CURL_READFUNC_ABORT;
static const int skylift_curl_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int skylift_curl_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;
static const long skylift_curl_global_default = CURL_GLOBAL_DEFAULT;
#endif
