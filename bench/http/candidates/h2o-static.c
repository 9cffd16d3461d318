/*
 * h2o-static ROOT PORT THREADS
 *
 * A measurement prototype for issue #28, not project code: the ceiling of libh2o's event loop (Debian
 * libh2o-evloop-dev 2.2.5) as Skylift's HTTP core. It serves GET/HEAD of the files under ROOT with h2o's own file
 * handler, HTTP/1.1 with keep-alive, no access log, on 127.0.0.1:PORT. Each of THREADS threads runs its own evloop
 * with its own listening socket (SO_REUSEPORT), so the kernel spreads connections over the loops and no loop
 * shares anything with another at run time.
 *
 * Build: cc -O2 -DH2O_USE_LIBUV=0 h2o-static.c $(pkg-config --cflags --libs libh2o-evloop) -lpthread -o h2o-static
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <h2o.h>

static h2o_globalconf_t globalconf;
static unsigned short listen_port;

struct loop_thread {
    pthread_t thread;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept_ctx;
};

static int open_listener(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on)) != 0)
        goto fail;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(listen_port);
    if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(fd, 4096) != 0)
        goto fail;
    return fd;
fail:
    close(fd);
    return -1;
}

/* The listener is read-ready: take every pending connection and hand each to h2o's HTTP/1 handling. */
static void on_accept(h2o_socket_t *listener, const char *err)
{
    if (err != NULL)
        return;
    struct loop_thread *lt = listener->data;
    for (int i = 0; i < 64; ++i) {
        h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
        if (sock == NULL)
            return;
        h2o_accept(&lt->accept_ctx, sock);
    }
}

static void *run_loop(void *arg)
{
    struct loop_thread *lt = arg;
    h2o_context_init(&lt->ctx, h2o_evloop_create(), &globalconf);
    lt->accept_ctx.ctx = &lt->ctx;
    lt->accept_ctx.hosts = globalconf.hosts;

    int fd = open_listener();
    if (fd < 0) {
        fprintf(stderr, "h2o-static: cannot listen on 127.0.0.1:%u: %s\n", listen_port, strerror(errno));
        exit(1);
    }
    h2o_socket_t *listener = h2o_evloop_socket_create(lt->ctx.loop, fd, H2O_SOCKET_FLAG_DONT_READ);
    listener->data = lt;
    h2o_socket_read_start(listener, on_accept);

    for (;;)
        h2o_evloop_run(lt->ctx.loop, INT32_MAX);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: h2o-static ROOT PORT THREADS\n");
        return 2;
    }
    const char *root = argv[1];
    long port = strtol(argv[2], NULL, 10), threads = strtol(argv[3], NULL, 10);
    if (port <= 0 || port > 65535 || threads <= 0 || threads > 256) {
        fprintf(stderr, "h2o-static: bad PORT or THREADS\n");
        return 2;
    }
    listen_port = (unsigned short)port;
    signal(SIGPIPE, SIG_IGN);

    h2o_config_init(&globalconf);
    h2o_hostconf_t *host = h2o_config_register_host(&globalconf, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    /* No index files, no directory listing: only files, as the peers in the benchmark serve them. */
    static const char *no_index[] = {NULL};
    if (h2o_file_register(path, root, no_index, NULL, 0) == NULL) {
        fprintf(stderr, "h2o-static: h2o_file_register failed for %s\n", root);
        return 1;
    }

    struct loop_thread *loops = calloc((size_t)threads, sizeof(*loops));
    if (loops == NULL)
        return 1;
    for (long i = 0; i < threads; ++i) {
        if (pthread_create(&loops[i].thread, NULL, run_loop, &loops[i]) != 0) {
            fprintf(stderr, "h2o-static: pthread_create failed\n");
            return 1;
        }
    }
    for (long i = 0; i < threads; ++i)
        pthread_join(loops[i].thread, NULL);
    return 0;
}
