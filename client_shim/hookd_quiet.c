/* hookd's native quiet chunk: the stream lane's socket served by a native thread, which answers a streamed
 * chunk that no policy can answer (a quiet chunk: hookd.pipeline, `Pipeline.quiet_chunk`) without waking
 * Python, and hands every other connection to Python unchanged (its descriptor, its bytes unread).
 *
 * Python keeps the state that decides and tells this library of it (hookd.transport.native_quiet): the
 * frame headers it has read as a shim's Gemini AfterModel, the cues (`routing.stream_text`), and for each
 * response whose next chunk may be quiet its session, its request's bytes, its journal line's beginning, its
 * chunk count and the last characters of its text. A chunk is answered here only when every one of these
 * holds; any doubt (an escape not decoded here, a key not found, a field not known, a size past a cap, a
 * frame not whole, a cue) hands it to Python, which decides it as if this library did not exist. A chunk
 * answered here is journaled here (the line hookd.procs.journal writes), answered with the plain allow, and
 * queued for Python, which folds it into its response's text and record when it next runs (`hq_take`).
 *
 * libc only; built by `hookd shim build` beside the native shim.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define HQ_KEYS 256
#define HQ_HEADERS 64
#define HQ_CUES 64
#define HQ_BUF (1024 * 1024)     /* a frame past this is Python's */
#define HQ_OWED_MAX 4096         /* chunks answered and not yet taken by Python, at most */
#define HQ_OWED_URGENT 1024      /* past this many, Python is asked to take them at once */
#define HQ_KEYS_IN_OBJECT 64
#define HQ_DEPTH 32
#define HQ_WAIT_MS 10            /* a frame not whole at the accept is waited for this long, then Python's */
#define HQ_GROW_US 500           /* a frame in part that grows by nothing in this long is Python's */
#define HQ_PREFIX 14             /* magic(4) version(1) pad(1) header_len(4) payload_len(4), big-endian */
#define HQ_LINE (8 * (size_t)HQ_BUF)   /* the scratch line: a journal line, or a tail with a chunk */
#define HQ_ABI 2                 /* the calls' signatures: hookd.transport.native_quiet checks it with the hash */
#define HQ_THREAD_GONE (-2)      /* the note on Python's pipe when the thread stops on its own */
#ifndef HQ_SOURCE_HASH
#define HQ_SOURCE_HASH "unknown" /* `hookd shim build` passes the source's hash: a library built otherwise is refused */
#endif
#define HQ_STR(x) #x
#define HQ_XSTR(x) HQ_STR(x)

typedef struct {
    char *data;
    size_t len;
} hq_bytes;

typedef struct {
    int used, eligible;
    hq_bytes session, request, line_start, tail;
    long tail_chars, index;
} hq_key;

typedef struct hq_owed {
    struct hq_owed *next;
    int slot;
    long index;
    double latency_ms;
    size_t len;
    char text[];
} hq_owed;

typedef struct {
    pthread_mutex_t lock;
    pthread_t thread;
    int started, listen_fd, wake_fd, stop_r, stop_w;
    uid_t uid;
    long timeout_ms, max_text, longest;
    unsigned long max_header, max_payload;   /* hookd's [daemon] limits: a frame past them is Python's */
    int paused, disabled;
    unsigned long handed;          /* connections handed to Python */
    char magic[4];
    unsigned char version;
    hq_bytes reply, headers[HQ_HEADERS], cues[HQ_CUES];
    int ncues, next_header;
    hq_key keys[HQ_KEYS];
    int journal_fd;
    long long journal_size, journal_bound;
    hq_owed *owed_head, *owed_tail;
    long owed;
    unsigned long answered, late;   /* chunks answered here; frames not whole in time, handed over */
    char *buf, *rest, *text, *line;
} hq;

/* ---------------------------------------------------------------- strict JSON, as hookd reads a payload */

typedef struct {
    const unsigned char *p, *end;
    int depth;
    char *text;       /* the chunk's text, UTF-8, decoded */
    size_t text_len;
    long text_chars;
    int have_text, have_session, finish;
    const unsigned char *session_raw;   /* decoded into the caller's buffer */
    char session[1024];
    size_t session_len;
} jp;

enum { CTX_ANY, CTX_TOP, CTX_RESPONSE, CTX_CANDIDATES, CTX_CANDIDATE, CTX_CONTENT, CTX_PARTS, CTX_PART };

static void ws(jp *j) {
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static int hex4(const unsigned char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

static size_t put_utf8(char *out, unsigned cp) {
    if (cp < 0x80) { out[0] = (char)cp; return 1; }
    if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12)); out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18)); out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); out[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* One valid UTF-8 sequence at p (as Python's strict decoder takes it): its length, 0 when not valid. */
static int utf8_seq(const unsigned char *p, const unsigned char *end) {
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return 0;
    if (end - p < n) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < n; i++) if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

/* A string at j->p (its opening quote), decoded into out (cap bytes; out may be NULL: validated only).
 * -1: not a string hookd's reader reads the same way (a lone surrogate, a control character, bad UTF-8). */
static long string(jp *j, char *out, size_t cap, size_t *len, long *chars) {
    size_t n = 0;
    long count = 0;
    if (j->p >= j->end || *j->p != '"') return -1;
    j->p++;
    for (;;) {
        if (j->p >= j->end) return -1;
        unsigned c = *j->p;
        if (c == '"') { j->p++; break; }
        if (c < 0x20) return -1;
        char tmp[4];
        size_t k;
        if (c == '\\') {
            if (j->end - j->p < 2) return -1;
            unsigned e = j->p[1], cp;
            j->p += 2;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (j->end - j->p < 4 || hex4(j->p, &cp)) return -1;
                j->p += 4;
                if (cp >= 0xDC00 && cp <= 0xDFFF) return -1;          /* a lone low surrogate */
                if (cp >= 0xD800 && cp <= 0xDBFF) {                   /* a pair, or Python's U+FFFD: doubt */
                    unsigned low;
                    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || hex4(j->p + 2, &low)) return -1;
                    if (low < 0xDC00 || low > 0xDFFF) return -1;
                    j->p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                break;
            default: return -1;
            }
            k = put_utf8(tmp, cp);
        } else {
            int s = utf8_seq(j->p, j->end);
            if (!s) return -1;
            memcpy(tmp, j->p, (size_t)s);
            k = (size_t)s;
            j->p += s;
        }
        if (out) {
            if (n + k > cap) return -1;
            memcpy(out + n, tmp, k);
        }
        n += k;
        count++;
    }
    if (len) *len = n;
    if (chars) *chars = count;
    return 0;
}

static int number(jp *j) {
    const unsigned char *s = j->p;
    if (j->p < j->end && *j->p == '-') j->p++;
    if (j->p >= j->end) return -1;
    if (*j->p == '0') j->p++;
    else if (*j->p >= '1' && *j->p <= '9') while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
    else return -1;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        const unsigned char *f = j->p;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9') j->p++;
        if (j->p == f) return -1;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) return -1;   /* 1e999 is refused there: doubt */
    return j->p - s > 300 ? -1 : 0;
}

static int value(jp *j, int ctx);

static int literal(jp *j, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return -1;
    j->p += n;
    return 0;
}

static int key_is(const char *key, size_t len, const char *name) {
    return strlen(name) == len && !memcmp(key, name, len);
}

/* The context of a member's value, -1 for a member not known there (doubt: an unknown field). */
static int member(jp *j, int ctx, const char *key, size_t len) {
    switch (ctx) {
    case CTX_TOP:
        if (key_is(key, len, "llm_response")) return CTX_RESPONSE;
        if (key_is(key, len, "session_id") || key_is(key, len, "hook_event_name") ||
            key_is(key, len, "llm_request")) return CTX_TOP;   /* read by `object` itself */
        if (key_is(key, len, "cwd") || key_is(key, len, "transcript_path") || key_is(key, len, "timestamp"))
            return CTX_ANY;
        return -1;
    case CTX_RESPONSE:
        if (key_is(key, len, "candidates")) return CTX_CANDIDATES;
        if (key_is(key, len, "text") || key_is(key, len, "usageMetadata")) return CTX_ANY;
        return -1;
    case CTX_CANDIDATE:
        if (key_is(key, len, "content")) return CTX_CONTENT;
        if (key_is(key, len, "finishReason")) { j->finish = 1; return CTX_ANY; }
        if (key_is(key, len, "index") || key_is(key, len, "safetyRatings")) return CTX_ANY;
        return -1;
    case CTX_CONTENT:
        if (key_is(key, len, "parts")) return CTX_PARTS;
        if (key_is(key, len, "role")) return CTX_ANY;
        return -1;
    case CTX_PART:
        return key_is(key, len, "text") ? CTX_PART : -1;
    default:
        return CTX_ANY;
    }
}

static int text_value(jp *j) {
    if (j->have_text) return -1;
    j->have_text = 1;
    return (int)string(j, j->text, HQ_BUF, &j->text_len, &j->text_chars);
}

static int object(jp *j, int ctx) {
    char keys[HQ_KEYS_IN_OBJECT][64];
    size_t lens[HQ_KEYS_IN_OBJECT];
    int n = 0;
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == '}') { j->p++; return ctx == CTX_ANY ? 0 : -1; }
    for (;;) {
        char key[64];
        size_t len;
        ws(j);
        if (n >= HQ_KEYS_IN_OBJECT || string(j, key, sizeof key, &len, NULL)) return -1;
        for (int i = 0; i < n; i++) if (lens[i] == len && !memcmp(keys[i], key, len)) return -1;  /* duplicate */
        memcpy(keys[n], key, len);
        lens[n++] = len;
        ws(j);
        if (j->p >= j->end || *j->p != ':') return -1;
        j->p++;
        ws(j);
        int inner = member(j, ctx, key, len);
        if (inner < 0) return -1;
        if (ctx == CTX_TOP && key_is(key, len, "llm_request")) {
            if (j->p >= j->end || *j->p != 0x01) return -1;   /* the placeholder: the request found is this one */
            j->p++;
        } else if (ctx == CTX_TOP && key_is(key, len, "session_id")) {
            if (string(j, j->session, sizeof j->session, &j->session_len, NULL) || !j->session_len) return -1;
            j->have_session = 1;
        } else if (ctx == CTX_TOP && key_is(key, len, "hook_event_name")) {
            char name[32];
            size_t nl;
            if (string(j, name, sizeof name, &nl, NULL) || !key_is(name, nl, "AfterModel")) return -1;
        } else if (ctx == CTX_PART) {
            if (text_value(j)) return -1;
        } else if (value(j, inner)) {
            return -1;
        }
        ws(j);
        if (j->p < j->end && *j->p == ',') { j->p++; continue; }
        if (j->p < j->end && *j->p == '}') { j->p++; break; }
        return -1;
    }
    if (ctx == CTX_TOP) return j->have_session && j->have_text ? 0 : -1;
    if (ctx == CTX_CANDIDATE || ctx == CTX_RESPONSE || ctx == CTX_CONTENT) return 0;
    return 0;
}

static int array(jp *j, int ctx) {
    int n = 0;
    j->p++;
    ws(j);
    if (j->p < j->end && *j->p == ']') { j->p++; return ctx == CTX_ANY ? 0 : -1; }
    for (;;) {
        ws(j);
        int inner = CTX_ANY;
        if (ctx == CTX_CANDIDATES && n == 0) inner = CTX_CANDIDATE;
        if (ctx == CTX_PARTS) {
            if (n > 0) return -1;   /* one part: more are joined there, doubt here */
            if (j->p < j->end && *j->p == '"') {
                if (text_value(j)) return -1;
                inner = -2;
            } else {
                inner = CTX_PART;
            }
        }
        if (inner != -2 && value(j, inner)) return -1;
        n++;
        ws(j);
        if (j->p < j->end && *j->p == ',') { j->p++; continue; }
        if (j->p < j->end && *j->p == ']') { j->p++; return 0; }
        return -1;
    }
}

static int value(jp *j, int ctx) {
    if (j->p >= j->end) return -1;
    unsigned c = *j->p;
    int wants_array = ctx == CTX_CANDIDATES || ctx == CTX_PARTS, r;
    if (c == '{' && !wants_array) {
        if (++j->depth > HQ_DEPTH) return -1;
        r = object(j, ctx);
        j->depth--;
        return r;
    }
    if (c == '[' && (ctx == CTX_ANY || wants_array)) {
        if (++j->depth > HQ_DEPTH) return -1;
        r = array(j, ctx);
        j->depth--;
        return r;
    }
    if (ctx != CTX_ANY) return -1;   /* a known field of another type: doubt */
    if (c == '"') return (int)string(j, NULL, 0, NULL, NULL);
    if (c == 't') return literal(j, "true");
    if (c == 'f') return literal(j, "false");
    if (c == 'n') return literal(j, "null");
    return number(j);
}

static int payload(jp *j) {
    ws(j);
    if (j->p >= j->end || *j->p != '{') return -1;
    j->depth = 1;
    if (object(j, CTX_TOP)) return -1;
    ws(j);
    return j->p == j->end ? 0 : -1;
}

static const unsigned char *find_last(const unsigned char *hay, size_t n, const char *needle, size_t k) {
    if (k > n) return NULL;
    for (size_t i = n - k + 1; i-- > 0;) if (!memcmp(hay + i, needle, k)) return hay + i;
    return NULL;
}

/* A chunk's payload as hookd reads it: the request's value found as hookd.dialects.repeated finds it (the
 * first key, the last follower; *req, *rlen), the rest read with that value replaced by a placeholder byte
 * that no JSON text holds, which must be the top-level field's value. 0: read; -1: doubt. */
static int read_chunk(const unsigned char *body, size_t blen, char *rest, jp *j, const unsigned char **req,
                      size_t *rlen) {
    static const char key_name[] = "\"llm_request\":", follower[] = ",\"llm_response\":";
    const unsigned char *start = memmem(body, blen, key_name, sizeof key_name - 1);
    const unsigned char *end = find_last(body, blen, follower, sizeof follower - 1);
    if (!start || !end || end <= start) return -1;
    start += sizeof key_name - 1;
    if (end < start) return -1;
    size_t before = (size_t)(start - body), after = blen - (size_t)(end - body);
    if (before + 1 + after > HQ_BUF) return -1;
    memcpy(rest, body, before);
    rest[before] = 0x01;
    memcpy(rest + before + 1, end, after);
    j->p = (const unsigned char *)rest;
    j->end = j->p + before + 1 + after;
    if (payload(j) || j->finish) return -1;
    *req = start;
    *rlen = (size_t)(end - start);
    return 0;
}

/* ---------------------------------------------------------------- the journal's line */

static size_t ascii_escaped(const char *s, size_t n, char *out) {
    static const char hexd[] = "0123456789abcdef";
    size_t o = 0;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p, cp;
        int k = utf8_seq(p, end);
        if (c < 0x80) cp = c;
        else if (k == 2) cp = ((c & 0x1F) << 6) | (p[1] & 0x3F);
        else if (k == 3) cp = ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
        else cp = ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
        p += k ? k : 1;
        if (cp == '"') { out[o++] = '\\'; out[o++] = '"'; continue; }
        if (cp == '\\') { out[o++] = '\\'; out[o++] = '\\'; continue; }
        if (cp == '\n') { out[o++] = '\\'; out[o++] = 'n'; continue; }
        if (cp == '\r') { out[o++] = '\\'; out[o++] = 'r'; continue; }
        if (cp == '\t') { out[o++] = '\\'; out[o++] = 't'; continue; }
        if (cp == '\b') { out[o++] = '\\'; out[o++] = 'b'; continue; }
        if (cp == '\f') { out[o++] = '\\'; out[o++] = 'f'; continue; }
        if (cp >= 0x20 && cp <= 0x7E) { out[o++] = (char)cp; continue; }
        unsigned units[2] = {cp, 0};
        int count = 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[0] = 0xD800 | (cp >> 10);
            units[1] = 0xDC00 | (cp & 0x3FF);
            count = 2;
        }
        for (int i = 0; i < count; i++) {
            out[o++] = '\\'; out[o++] = 'u';
            for (int shift = 12; shift >= 0; shift -= 4) out[o++] = hexd[(units[i] >> shift) & 0xF];
        }
    }
    return o;
}

/* ---------------------------------------------------------------- the decision */

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The tail of `text` (its last `chars` characters), a valid UTF-8 string */
static size_t tail_start(const char *text, size_t len, long chars) {
    size_t i = len;
    while (chars > 0 && i > 0) {
        i--;
        if (((unsigned char)text[i] & 0xC0) != 0x80) chars--;
    }
    return i;
}

static int holds_cue(hq *h, hq_key *key, const char *text, size_t len) {
    /* the characters before the chunk that a cue could begin in, and the chunk: as `ResponseStreams._since` */
    size_t n = key->tail.len + len;
    if (n > HQ_LINE) return 1;   /* past the scratch line: Python's */
    char *joined = h->line;   /* scratch: the line is built after the search */
    memcpy(joined, key->tail.data, key->tail.len);
    memcpy(joined + key->tail.len, text, len);
    for (int i = 0; i < h->ncues; i++)
        if (h->cues[i].len == 0 || memmem(joined, n, h->cues[i].data, h->cues[i].len)) return 1;
    return 0;
}

static int set_bytes(hq_bytes *b, const char *data, size_t len) {
    char *copy = malloc(len ? len : 1);
    if (!copy) return -1;
    memcpy(copy, data, len);
    free(b->data);
    b->data = copy;
    b->len = len;
    return 0;
}

/* 1: answered here; 0: Python's. Called with the lock held, the whole frame in h->buf. */
static int quiet(hq *h, size_t frame_len, long long accepted) {
    const unsigned char *b = (const unsigned char *)h->buf;
    uint32_t hlen = ((uint32_t)b[6] << 24) | ((uint32_t)b[7] << 16) | ((uint32_t)b[8] << 8) | b[9];
    uint32_t plen = ((uint32_t)b[10] << 24) | ((uint32_t)b[11] << 16) | ((uint32_t)b[12] << 8) | b[13];
    const unsigned char *header = b + HQ_PREFIX, *body = header + hlen;
    size_t blen = plen;
    int known = 0;
    for (int i = 0; i < HQ_HEADERS && !known; i++)
        known = h->headers[i].data && h->headers[i].len == hlen && !memcmp(h->headers[i].data, header, hlen);
    if (!known || frame_len != HQ_PREFIX + (size_t)hlen + plen) return 0;
    jp j;
    const unsigned char *start;
    size_t rlen;
    memset(&j, 0, sizeof j);
    j.text = h->text;
    if (read_chunk(body, blen, h->rest, &j, &start, &rlen)) return 0;
    if (j.text_chars > h->max_text) return 0;   /* the journal keeps the end of a longer chunk: Python's */
    hq_key *key = NULL;
    for (int i = 0; i < HQ_KEYS; i++) {
        hq_key *k = &h->keys[i];
        if (k->used && k->session.len == j.session_len && !memcmp(k->session.data, j.session, j.session_len) &&
            k->request.len == rlen && !memcmp(k->request.data, start, rlen)) { key = k; break; }
    }
    if (!key || !key->eligible) return 0;
    if (now_ns() - accepted > h->timeout_ms * 1000000LL) return 0;
    if (holds_cue(h, key, j.text, j.text_len)) return 0;
    if (h->owed >= HQ_OWED_MAX) return 0;
    /* the journal's line, as hookd.procs.journal writes it, before the reply */
    size_t o = 0;
    static const char ending[] = "\",\"cut\":false,\"f\":false}\n";
    /* an escaped byte takes at most 6 (\u00XX); the new tail is at most the old one and the chunk */
    if (key->line_start.len > HQ_LINE || j.text_len > (HQ_LINE - key->line_start.len - sizeof ending) / 6 ||
        key->tail.len + j.text_len > HQ_LINE) return 0;
    memcpy(h->line, key->line_start.data, key->line_start.len);
    o = key->line_start.len;
    h->line[o++] = '"';
    o += ascii_escaped(j.text, j.text_len, h->line + o);
    memcpy(h->line + o, ending, sizeof ending - 1);
    o += sizeof ending - 1;
    if (h->journal_fd < 0 || h->journal_size + (long long)o > h->journal_bound) return 0;
    ssize_t wrote = pwrite(h->journal_fd, h->line, o, h->journal_size);
    if (wrote != (ssize_t)o) return 0;   /* Python writes it again, or answers the fail mode */
    hq_owed *owed = malloc(sizeof *owed + j.text_len + 1);
    if (!owed) return 0;   /* the line is written past the size Python knows: it writes over it */
    h->journal_size += o;
    /* the new tail: the last characters a cue could begin in, of the text with the chunk */
    size_t joined = key->tail.len + j.text_len;
    memcpy(h->line, key->tail.data, key->tail.len);
    memcpy(h->line + key->tail.len, j.text, j.text_len);
    size_t from = tail_start(h->line, joined, h->longest - 1 < h->max_text ? h->longest - 1 : h->max_text);
    if (set_bytes(&key->tail, h->line + from, joined - from)) key->eligible = 0;
    key->index++;
    owed->next = NULL;
    owed->slot = (int)(key - h->keys);
    owed->index = key->index;
    owed->len = j.text_len;
    memcpy(owed->text, j.text, j.text_len);
    owed->latency_ms = (double)(now_ns() - accepted) / 1e6;
    if (h->owed_tail) h->owed_tail->next = owed; else h->owed_head = owed;
    h->owed_tail = owed;
    h->owed++;
    h->answered++;
    return 1;
}

/* ---------------------------------------------------------------- the thread */

static int tell(hq *h, int32_t what) {
    /* a handed descriptor, or -1: chunks are waiting to be taken; a pipe write of 4 bytes is atomic */
    ssize_t r;
    do r = write(h->wake_fd, &what, sizeof what); while (r < 0 && errno == EINTR);
    return r == (ssize_t)sizeof what ? 0 : -1;
}

/* The length of the frame whose first n bytes are in buf when it is within every bound, else 0 (not known yet
 * when n is shorter than the prefix: HQ_PREFIX). */
static size_t frame_length(hq *h, const char *buf, size_t n) {
    if (n < HQ_PREFIX) return HQ_PREFIX;
    const unsigned char *b = (const unsigned char *)buf;
    uint32_t hlen = ((uint32_t)b[6] << 24) | ((uint32_t)b[7] << 16) | ((uint32_t)b[8] << 8) | b[9];
    uint32_t plen = ((uint32_t)b[10] << 24) | ((uint32_t)b[11] << 16) | ((uint32_t)b[12] << 8) | b[13];
    if (hlen > h->max_header || plen > h->max_payload) return 0;   /* Python answers it too large */
    if ((uint64_t)HQ_PREFIX + hlen + plen > HQ_BUF) return 0;
    return HQ_PREFIX + (size_t)hlen + plen;
}

/* The frame a connection sent: waited for (poll sleeps) until its first bytes come, and while more of it keeps
 * coming (one write of a long frame reaches the socket in pieces: a kernel's stream skb holds about 36 KiB), each
 * within HQ_WAIT_MS of the accept. A sender that stops mid-frame is handed over once HQ_GROW_US passes with no new
 * byte, so it holds this thread no longer; more than one frame, or one past a bound, is handed over at once. */
static size_t peek_frame(hq *h, int fd, char *buf, long long accepted) {
    ssize_t seen = 0;
    for (;;) {
        ssize_t n = recv(fd, buf, HQ_BUF, MSG_PEEK | MSG_DONTWAIT);
        long left = HQ_WAIT_MS - (long)((now_ns() - accepted) / 1000000LL);
        if (n > 0) {
            size_t want = frame_length(h, buf, (size_t)n);
            if (want && (size_t)n == want && n >= HQ_PREFIX) return want;
            if (!want || (size_t)n > want || n == seen || left <= 0) break;   /* stalled, or never one frame */
            seen = n;
            struct timespec grow = {0, HQ_GROW_US * 1000L};
            nanosleep(&grow, NULL);
            continue;
        }
        if (n == 0) return 0;
        if (errno == EINTR) continue;
        if (errno != EAGAIN) return 0;
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0) break;
    }
    __atomic_add_fetch(&h->late, 1, __ATOMIC_RELAXED);
    return 0;
}

static void serve(hq *h, int fd) {
    long long accepted = now_ns();
    struct ucred cred;
    socklen_t cl = sizeof cred;
    size_t got = 0;
    int mine = 0;
    if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) && cred.uid == h->uid && cred.pid != getppid()) {
        got = peek_frame(h, fd, h->buf, accepted);
    }
    pthread_mutex_lock(&h->lock);
    if (got && !h->paused && !h->disabled && !memcmp(h->buf, h->magic, 4) &&
        (unsigned char)h->buf[4] == h->version)
        mine = quiet(h, got, accepted);
    if (!mine) {
        h->paused = 1;   /* nothing more is answered here until Python has taken this one: chunks stay in order */
        if (tell(h, fd) == 0) h->handed++;
        else close(fd);   /* Python's pipe is full: no reply, the shim's fail mode */
    } else if (h->owed == 1 || h->owed == HQ_OWED_URGENT) {
        tell(h, -1);
    }
    pthread_mutex_unlock(&h->lock);
    if (mine) {
        /* the frame read off (it was peeked), the allow written, closed */
        size_t left = got;
        while (left > 0) {
            ssize_t n = recv(fd, h->buf, left, MSG_DONTWAIT);
            if (n <= 0 && !(n < 0 && errno == EINTR)) break;
            if (n > 0) left -= (size_t)n;
        }
        ssize_t w;
        do w = send(fd, h->reply.data, h->reply.len, MSG_NOSIGNAL | MSG_DONTWAIT); while (w < 0 && errno == EINTR);
        close(fd);
    }
}

static void *run(void *arg) {
    hq *h = arg;
    struct pollfd p[2] = {{h->listen_fd, POLLIN, 0}, {h->stop_r, POLLIN, 0}};
    for (;;) {
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[1].revents) return NULL;   /* stopped by Python */
        if (p[0].revents & (POLLERR | POLLHUP | POLLNVAL)) break;   /* the socket failed or was shut */
        if (!(p[0].revents & POLLIN)) continue;
        int fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                struct pollfd s = {h->stop_r, POLLIN, 0};
                if (poll(&s, 1, 100) > 0) return NULL;   /* out of descriptors: the backlog waits */
            }
            if (errno == EBADF || errno == EINVAL || errno == ENOTSOCK || errno == EOPNOTSUPP) break;   /* no socket */
            continue;
        }
        serve(h, fd);
    }
    /* stopped on its own (the socket failed): Python accepts again, or nobody would */
    pthread_mutex_lock(&h->lock);
    h->disabled = 1;
    tell(h, HQ_THREAD_GONE);
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* ---------------------------------------------------------------- the API (hookd.transport.native_quiet) */

/* What this library is: its calls' version and its source's hash, checked before any other call is made. */
const char *hq_abi(void) { return "hookd-quiet/" HQ_XSTR(HQ_ABI) "/" HQ_SOURCE_HASH; }

hq *hq_new(int listen_fd, int wake_fd, unsigned uid, long timeout_ms, long max_text, unsigned long max_header,
           unsigned long max_payload, const char *magic, int version, const char *reply, size_t reply_len) {
    hq *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    pthread_mutex_init(&h->lock, NULL);
    h->listen_fd = listen_fd;
    h->wake_fd = wake_fd;
    h->uid = uid;
    h->timeout_ms = timeout_ms;
    h->max_text = max_text;
    h->max_header = max_header;
    h->max_payload = max_payload;
    h->paused = 1;
    h->journal_fd = -1;
    memcpy(h->magic, magic, 4);
    h->version = (unsigned char)version;
    int fds[2];
    h->buf = malloc(HQ_BUF);
    h->rest = malloc(HQ_BUF + 1);
    h->text = malloc(HQ_BUF);
    h->line = malloc(HQ_LINE);
    if (!h->buf || !h->rest || !h->text || !h->line || set_bytes(&h->reply, reply, reply_len) ||
        pipe2(fds, O_CLOEXEC)) {
        free(h->buf); free(h->rest); free(h->text); free(h->line); free(h);
        return NULL;
    }
    h->stop_r = fds[0];
    h->stop_w = fds[1];
    return h;
}

int hq_start(hq *h) {
    if (pthread_create(&h->thread, NULL, run, h)) return -1;
    h->started = 1;
    return 0;
}

void hq_stop(hq *h) {
    if (h->started) {
        ssize_t r;
        do r = write(h->stop_w, "x", 1); while (r < 0 && errno == EINTR);
        pthread_join(h->thread, NULL);
        h->started = 0;
    }
}

void hq_lock(hq *h) { pthread_mutex_lock(&h->lock); }
void hq_unlock(hq *h) { pthread_mutex_unlock(&h->lock); }

/* with the lock held, each of these: */
void hq_pause(hq *h) { h->paused = 1; }
void hq_disable(hq *h) { h->disabled = 1; }
unsigned long hq_handed(hq *h) { return h->handed; }
unsigned long hq_answered(hq *h) { return h->answered; }
unsigned long hq_late(hq *h) { return __atomic_load_n(&h->late, __ATOMIC_RELAXED); }

int hq_resume(hq *h, unsigned long taken) {
    if (taken != h->handed) return 0;   /* a connection handed since is not taken yet: it comes first */
    h->paused = 0;
    return 1;
}

int hq_set_cues(hq *h, const char *blob, const size_t *lens, int count, long longest) {
    if (count < 0 || count > HQ_CUES || longest > h->max_text) return -1;   /* Python decides those chunks */
    for (int i = 0; i < h->ncues; i++) { free(h->cues[i].data); h->cues[i].data = NULL; }
    h->ncues = 0;
    for (int i = 0; i < count; i++) {
        if (set_bytes(&h->cues[i], blob, lens[i])) return -1;
        h->ncues++;
        blob += lens[i];
    }
    h->longest = longest;
    return 0;
}

int hq_add_header(hq *h, const char *data, size_t len) {
    for (int i = 0; i < HQ_HEADERS; i++)
        if (h->headers[i].data && h->headers[i].len == len && !memcmp(h->headers[i].data, data, len)) return 0;
    int r = set_bytes(&h->headers[h->next_header], data, len);
    h->next_header = (h->next_header + 1) % HQ_HEADERS;
    return r;
}

int hq_set_journal(hq *h, int fd, long long size, long long bound) {
    h->journal_fd = fd;
    h->journal_size = size;
    h->journal_bound = bound;
    return 0;
}

long long hq_journal_size(hq *h) { return h->journal_size; }

/* A response's state: its session, request and line's beginning (NULL: as before), its chunks and tail. */
int hq_set_key(hq *h, int slot, const char *session, size_t slen, const char *request, size_t rlen,
               const char *start, size_t stlen, const char *tail, size_t tlen, long index, int eligible) {
    if (slot < 0 || slot >= HQ_KEYS) return -1;
    hq_key *k = &h->keys[slot];
    k->eligible = 0;
    if (session && (set_bytes(&k->session, session, slen) || set_bytes(&k->request, request, rlen) ||
                    set_bytes(&k->line_start, start, stlen))) return -1;
    if (set_bytes(&k->tail, tail, tlen)) return -1;
    k->used = 1;
    k->index = index;
    k->eligible = eligible;
    return 0;
}

void hq_drop_key(hq *h, int slot) {
    if (slot < 0 || slot >= HQ_KEYS) return;
    hq_key *k = &h->keys[slot];
    free(k->session.data); free(k->request.data); free(k->line_start.data); free(k->tail.data);
    memset(k, 0, sizeof *k);
}

/* The oldest chunk answered here and not taken: its text into `text` (cap bytes). 0: none; -1: too long. */
long hq_take(hq *h, int *slot, long *index, double *latency_ms, char *text, size_t cap) {
    hq_owed *o = h->owed_head;
    if (!o) return 0;
    if (o->len > cap) return -1;
    h->owed_head = o->next;
    if (!h->owed_head) h->owed_tail = NULL;
    h->owed--;
    *slot = o->slot;
    *index = o->index;
    *latency_ms = o->latency_ms;
    memcpy(text, o->text, o->len);
    long len = (long)o->len;
    free(o);
    return len + 1;   /* 1 + the length: an empty text is still a chunk */
}

void hq_free(hq *h) {
    hq_stop(h);
    while (h->owed_head) { hq_owed *o = h->owed_head; h->owed_head = o->next; free(o); }
    for (int i = 0; i < HQ_KEYS; i++) hq_drop_key(h, i);
    for (int i = 0; i < HQ_HEADERS; i++) free(h->headers[i].data);
    for (int i = 0; i < h->ncues; i++) free(h->cues[i].data);
    free(h->reply.data); free(h->buf); free(h->rest); free(h->text); free(h->line);
    close(h->stop_r); close(h->stop_w);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* For the property test: what this library reads of a payload (tests/unit/transport/test_native_quiet.py).
 * 1 and the session and text, or 0 (doubt). */
int hq_read_payload(const char *body, size_t blen, const char *request, size_t rlen, char *session,
                    size_t *slen, char *text, size_t *tlen, long *chars) {
    static char rest[HQ_BUF + 1];
    const unsigned char *start;
    size_t found;
    jp j;
    memset(&j, 0, sizeof j);
    j.text = text;
    if (read_chunk((const unsigned char *)body, blen, rest, &j, &start, &found)) return 0;
    if (found != rlen || memcmp(start, request, rlen)) return 0;
    memcpy(session, j.session, j.session_len);
    *slen = j.session_len;
    *tlen = j.text_len;
    *chars = j.text_chars;
    return 1;
}

size_t hq_escape(const char *text, size_t len, char *out) { return ascii_escaped(text, len, out); }
