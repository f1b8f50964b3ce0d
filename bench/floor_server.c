/* The native socket floor: bench/floor_server.py's work (read each request frame whole, answer the same fixed
 * allow, close) with no Python and no event loop: a blocking accept, the frame read, one write. What a hook
 * server costs a streamed chunk when none of it is Python (bench/gemini_rotate.py's `socket-c` contender), so
 * that hookd's figure over it is what its Python costs, and the socket floor's over it what uvloop's does.
 *
 *   floor-server-c SOCKET     (serves until SIGTERM; prints "listening" once it accepts)
 *
 * One connection at a time, each with a receive timeout: the bench sends one chunk at a time. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

enum { PREFIX = 14, MAX_FRAME = 64 << 20 }; // the request prefix: "HKDQ", version, pad, the header's and payload's lengths

/* The reply frame of bench/floor_server.py: "HKDR", version 1, status 0, exit code 0, a pad byte, the stdout's
 * and the stderr's lengths (network order), then the stdout "{}\n". */
static const unsigned char REPLY[] = {'H', 'K', 'D', 'R', 1, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, '{', '}', '\n'};

static int read_exactly(int fd, unsigned char *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void serve(int conn, unsigned char *frame) {
    struct timeval timeout = {.tv_sec = 10};
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    if (read_exactly(conn, frame, PREFIX) != 0 || memcmp(frame, "HKDQ", 4) != 0)
        return;
    uint64_t rest = (uint64_t)be32(frame + 6) + be32(frame + 10);
    if (rest > MAX_FRAME || read_exactly(conn, frame, (size_t)rest) != 0)
        return;
    ssize_t ignored = write(conn, REPLY, sizeof REPLY);
    (void)ignored;
}

int main(int argc, char **argv) {
    if (argc != 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: floor-server-c SOCKET (a path of at most 107 bytes)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, argv[1]);
    unlink(argv[1]);
    mode_t old = umask(0177);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, 128) != 0) {
        perror("floor-server-c");
        return 1;
    }
    umask(old);
    unsigned char *frame = malloc(MAX_FRAME);
    if (frame == NULL)
        return 1;
    printf("listening\n");
    fflush(stdout);
    for (;;) {
        int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            perror("floor-server-c: accept");
            return 1;
        }
        serve(conn, frame);
        close(conn);
    }
}
