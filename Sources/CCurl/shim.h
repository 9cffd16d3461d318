#ifndef SKYLIFT_CCURL_SHIM_H
#define SKYLIFT_CCURL_SHIM_H
#include <curl/curl.h>
/* curl_easy_setopt / curl_easy_getinfo are variadic: typed wrappers go here. */
static inline CURLcode skylift_curl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode skylift_curl_set_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
#endif
