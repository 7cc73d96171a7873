/* `zq signal`'s static files: GET and HEAD of a file under --web (index.html for a path ending
 * in /, as http_safe_path() maps it), a redirect to the path with a slash for a directory, or
 * 404. The directory is opened once at start and each path is taken relative to it, never
 * through the cwd. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/signal_server.h"

/* A file's descriptor, or -1; *is_dir when the path names a directory instead. */
static int open_static(const signal_server_t *srv, const http_request_t *req, char *rel,
                       size_t cap, struct stat *st, bool *is_dir)
{
    *is_dir = false;
    if (http_safe_path(req->path, req->path_len, rel, cap) != ZQ_OK) {
        return -1; /* "..", hidden files, bad escapes: as if absent */
    }
    /* Relative to the directory opened at start, so the root is fixed whatever the cwd. */
    int fd = openat(srv->web_dir, rel, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
        *is_dir = S_ISDIR(st->st_mode);
        (void)close(fd);
        fd = -1;
    }
    return fd;
}

/* /dash -> /dash/ (RFC 9110 §15.4.2), so the page's relative links resolve inside it. The path
 * is the request's own, which the parser took without CR, LF or spaces. */
static void redirect_to_directory(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                                  uint64_t now)
{
    char location[600];
    int n = snprintf(location, sizeof location, "Location: %.*s/\r\n", (int)req->path_len,
                     req->path);
    http_conn_reply(srv, h, now, n > 0 && (size_t)n < sizeof location ? 301 : 404,
                    n > 0 && (size_t)n < sizeof location ? location : NULL);
}

void signal_serve_file(signal_server_t *srv, http_conn_t *h, const http_request_t *req,
                       uint64_t now)
{
    if (srv->web_dir < 0) {
        http_conn_reply(srv, h, now, 404, NULL);
        return;
    }
    bool head_only = http_request_method_is(req, "HEAD");
    if (!head_only && !http_request_method_is(req, "GET")) {
        http_conn_reply(srv, h, now, 405, "Allow: GET, HEAD\r\n");
        return;
    }
    char rel[512];
    struct stat st;
    bool is_dir;
    int fd = open_static(srv, req, rel, sizeof rel, &st, &is_dir);
    if (fd < 0 && is_dir && req->path_len > 0 && req->path[req->path_len - 1] != '/') {
        redirect_to_directory(srv, h, req, now);
        return;
    }
    if (fd < 0) {
        http_conn_reply(srv, h, now, 404, NULL);
        return;
    }
    zq_writer_t w = zq_writer((uint8_t *)h->buf, sizeof h->buf);
    (void)http_response_head(&w, 200, http_content_type(rel), (size_t)st.st_size, NULL);
    if (head_only || st.st_size == 0) {
        (void)close(fd);
    } else {
        h->file = fd;
        h->file_left = (uint64_t)st.st_size;
    }
    http_conn_send(srv, h, w.len, now);
}
