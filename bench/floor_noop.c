/* The end-to-end floor: a static no-op that reads its stdin to the end, as a hook must, and exits 0.
 * `bash -c` of this is the least any hook command can cost; `/bin/true` is linked dynamically (slower
 * to start than a static shim) and does not read its input, so it is not the floor. */
#include <unistd.h>

int main(void) {
    char buf[65536];
    while (read(0, buf, sizeof buf) > 0) {
    }
    return 0;
}
