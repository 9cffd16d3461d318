# Sourced by bench/http/run.sh and bench/http/candidates/run.sh: the peer both measure against, set up one way.
#   free_port: prints a free loopback port.
#   nginx_start PORT HTTP_EXTRA SERVER_EXTRA: writes $WORK/nginx/nginx.conf (worker_processes auto, no access
#     log, sendfile with tcp_nopush, keep-alive without a request limit, root $WORK/www on 127.0.0.1:PORT, plus
#     the extra lines given for the http and server blocks) and starts nginx as a daemon ($WORK/nginx/nginx.pid).

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

nginx_start() {
    local port=$1 http_extra=${2:-} server_extra=${3:-}
    mkdir -p "$WORK/nginx/logs" "$WORK/nginx/tmp"
    cat > "$WORK/nginx/nginx.conf" <<CONF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
worker_processes auto;
worker_rlimit_nofile 65536;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 16384; }
http {
    $http_extra
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx/tmp;
    server {
        listen 127.0.0.1:$port backlog=4096;
        root $WORK/www;
        $server_extra
    }
}
CONF
    nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon on;'
}
