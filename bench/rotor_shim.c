/* The bench's rotating hook (bench/gemini_rotate.py): the native shim itself (client_shim/hookd_shim.c,
 * included whole, its main renamed), which call after call takes the next turn of a rotation: turn 0 reads its
 * stdin to the end and exits 0 (the spawn floor: this same static binary, asking nobody), turn k sends the
 * call to the k-th socket given, exactly as the shim does (the socket floor's server, hookd, another hookd).
 *
 *   hookd-rotor COUNTER CLIENT EVENT SOCKET...
 *
 * COUNTER is a file holding how many calls came before (absent: none); the agent runs its hooks one after the
 * other (Gemini awaits each AfterModel call before it shows the chunk), so call n takes turn n % (1 + sockets)
 * and the bench knows every call's turn from its place in the answer. Every turn pays the same counter read
 * and write before it goes its way, so the turns differ only by what they ask. */
#define main hookd_shim_main
#include "../client_shim/hookd_shim.c"
#undef main

#include <stdio.h>

static long next_call(const char *counter) {
    int fd = open(counter, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    char text[32] = {0};
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    long calls = got > 0 ? strtol(text, NULL, 10) : 0;
    int len = snprintf(text, sizeof text, "%ld\n", calls + 1);
    ssize_t wrote = pwrite(fd, text, (size_t)len, 0);
    close(fd);
    return wrote == len ? calls : -1;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        static const char usage[] = "usage: hookd-rotor COUNTER CLIENT EVENT SOCKET...\n";
        write_all(2, usage, sizeof usage - 1);
        return 2;
    }
    long call = next_call(argv[1]);
    if (call < 0) {
        static const char broken[] = "hookd-rotor: cannot count the calls\n";
        write_all(2, broken, sizeof broken - 1);
        return 2;
    }
    long turn = call % (long)(argc - 3);
    if (turn == 0) {
        char buf[65536];
        while (read(0, buf, sizeof buf) > 0) {
        }
        return 0;
    }
    char *shim_argv[] = {argv[0], argv[2], argv[3], "--socket", argv[3 + turn], NULL};
    return hookd_shim_main(5, shim_argv);
}
