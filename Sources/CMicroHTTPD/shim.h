#ifndef SKYLIFT_CMICROHTTPD_SHIM_H
#define SKYLIFT_CMICROHTTPD_SHIM_H
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdarg.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

/* Raw unescape: keeps the request target exactly as sent, so the server can
   decode it itself and see %2F, %2E and NUL before any path is built. */
static size_t skylift_mhd_keep_escapes(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls; (void)c;
    size_t n = 0;
    while (s[n] != 0) n++;
    return n;
}

/* MHD_start_daemon is variadic, which Swift cannot call. With tls_key_pem and tls_cert_pem (both PEM,
   NUL-terminated, or both NULL) the daemon speaks TLS; pass MHD_USE_TLS in flags too. */
static inline struct MHD_Daemon *skylift_mhd_start(
    unsigned int flags,
    const struct sockaddr *addr,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_NotifyConnectionCallback notify, void *notify_cls,
    size_t memory_limit, unsigned int connection_limit,
    unsigned int timeout_seconds, size_t thread_stack_size,
    unsigned int thread_pool_size, unsigned int listen_backlog,
    const char *tls_key_pem, const char *tls_cert_pem)
{
    struct MHD_OptionItem tls[] = {
        { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)tls_key_pem },
        { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)tls_cert_pem },
        { MHD_OPTION_END, 0, NULL },
    };
    /* Without TLS the array starts at its end marker, so no HTTPS option reaches a plain daemon. */
    struct MHD_OptionItem *extra = (tls_key_pem != NULL && tls_cert_pem != NULL) ? tls : tls + 2;
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_ARRAY, extra,
        MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        /* An increment as large as the pool makes libmicrohttpd grow the read buffer before every read (by an
           eighth of what is free, while that is at least 1 KiB), not only when it is full: a body then comes in
           reads of about three quarters of the pool instead of half, a third fewer recv and poll calls per
           byte. What the head and the response need is still taken back from the buffer's unused end. */
        MHD_OPTION_CONNECTION_MEMORY_INCREMENT, memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_THREAD_STACK_SIZE, thread_stack_size,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, listen_backlog,
        MHD_OPTION_UNESCAPE_CALLBACK, skylift_mhd_keep_escapes, NULL,
        MHD_OPTION_END);
}

/* The pointer the connection-notify callback stored for this connection (MHD_get_connection_info is variadic). */
static inline void *skylift_mhd_socket_context(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* The connection's socket (MHD_get_connection_info is variadic); -1 when libmicrohttpd does not say. */
static inline int skylift_mhd_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* The peer's address (MHD_get_connection_info is variadic); NULL when libmicrohttpd does not say. */
static inline const struct sockaddr *skylift_mhd_client_address(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/* Sets the connection's idle timeout and restarts its clock (MHD_set_connection_option is variadic). */
static inline void skylift_mhd_set_timeout(struct MHD_Connection *c, unsigned int seconds) {
    (void)MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

static inline uint16_t skylift_mhd_bound_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/* Has the kernel keep a new connection until its first bytes arrive, or `seconds` pass, before the listening
   socket reports it (Linux TCP_DEFER_ACCEPT; the option may be set on a socket already listening). Returns 0,
   or an errno: ENOTSUP where the system has no such option. */
static inline int skylift_mhd_defer_accept(struct MHD_Daemon *d, int seconds) {
#ifdef TCP_DEFER_ACCEPT
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
    if (info == NULL || info->listen_fd < 0) return EBADF;
    return setsockopt(info->listen_fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds, sizeof seconds) == 0 ? 0 : errno;
#else
    (void)d; (void)seconds;
    return ENOTSUP;
#endif
}

#endif
