#include "runtime/dbus/dbus_message.h"

#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Header field codes (the D-Bus specification, "Message Format"). */
enum {
        FIELD_PATH = 1,
        FIELD_INTERFACE = 2,
        FIELD_MEMBER = 3,
        FIELD_ERROR_NAME = 4,
        FIELD_REPLY_SERIAL = 5,
        FIELD_DESTINATION = 6,
        FIELD_SENDER = 7,
        FIELD_SIGNATURE = 8,
};

#define LITTLE 'l'
#define BIG 'B'

static size_t align_up(size_t n, size_t a)
{
        return (n + a - 1) & ~(a - 1);
}

/* ---- writer ---- */

static bool grow(struct dbus_writer *w, size_t more)
{
        if (w->failed)
                return false;
        if (w->len + more <= w->cap)
                return true;
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->len + more)
                cap *= 2;
        uint8_t *b = realloc(w->buf, cap);
        if (b == NULL) {
                w->failed = true;
                return false;
        }
        w->buf = b;
        w->cap = cap;
        return true;
}

static void pad(struct dbus_writer *w, size_t a)
{
        size_t to = align_up(w->len, a);

        if (to == w->len || !grow(w, to - w->len))
                return;
        memset(w->buf + w->len, 0, to - w->len);
        w->len = to;
}

static void put_raw(struct dbus_writer *w, const void *p, size_t n)
{
        if (!grow(w, n))
                return;
        memcpy(w->buf + w->len, p, n);
        w->len += n;
}

void dbus_writer_release(struct dbus_writer *w)
{
        free(w->buf);
        *w = (struct dbus_writer){ 0 };
}

void dbus_put_byte(struct dbus_writer *w, uint8_t v)
{
        put_raw(w, &v, 1);
}

/* Values are written in this machine's order; the header's first byte says
 * which (dbus_message_build). */
void dbus_put_u32(struct dbus_writer *w, uint32_t v)
{
        pad(w, 4);
        put_raw(w, &v, 4);
}

void dbus_put_bool(struct dbus_writer *w, bool v)
{
        dbus_put_u32(w, v ? 1 : 0);
}

void dbus_put_u64(struct dbus_writer *w, uint64_t v)
{
        pad(w, 8);
        put_raw(w, &v, 8);
}

void dbus_put_string(struct dbus_writer *w, const char *s)
{
        size_t n = strlen(s);

        if (n > UINT32_MAX) {
                w->failed = true;
                return;
        }
        dbus_put_u32(w, (uint32_t)n);
        put_raw(w, s, n + 1);
}

void dbus_put_signature(struct dbus_writer *w, const char *sig)
{
        size_t n = strlen(sig);

        if (n > 255) {
                w->failed = true;
                return;
        }
        dbus_put_byte(w, (uint8_t)n);
        put_raw(w, sig, n + 1);
}

void dbus_array_open(struct dbus_writer *w, size_t elem_align)
{
        if (w->depth >= DBUS_MAX_DEPTH) {
                w->failed = true;
                return;
        }
        dbus_put_u32(w, 0);
        w->arr_len_at[w->depth] = w->len - 4;
        /* The padding to the first element is not part of the length, and
         * is there even when the array is empty. */
        pad(w, elem_align);
        w->arr_start[w->depth] = w->len;
        w->depth++;
}

void dbus_array_close(struct dbus_writer *w)
{
        if (w->depth <= 0) {
                w->failed = true;
                return;
        }
        w->depth--;
        if (w->failed)
                return;
        size_t n = w->len - w->arr_start[w->depth];
        if (n > (64u << 20)) {
                w->failed = true;
                return;
        }
        uint32_t v = (uint32_t)n;
        memcpy(w->buf + w->arr_len_at[w->depth], &v, 4);
}

void dbus_struct_open(struct dbus_writer *w)
{
        pad(w, 8);
}

void dbus_variant_open(struct dbus_writer *w, const char *sig)
{
        dbus_put_signature(w, sig);
}

static void put_field(struct dbus_writer *w, uint8_t code, const char *sig, const char *value)
{
        dbus_struct_open(w);
        dbus_put_byte(w, code);
        dbus_variant_open(w, sig);
        if (strcmp(sig, "g") == 0)
                dbus_put_signature(w, value);
        else
                dbus_put_string(w, value);
}

int dbus_message_build(const struct dbus_call_head *h, uint32_t serial,
                       const struct dbus_writer *body, uint8_t **out, size_t *out_len)
{
        struct dbus_writer w = { 0 };
        size_t body_len = body ? body->len : 0;

        if ((body && (body->failed || body->depth != 0)) || body_len > DBUS_MAX_MESSAGE)
                return -EINVAL;
        dbus_put_byte(&w, __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? LITTLE : BIG);
        dbus_put_byte(&w, DBUS_METHOD_CALL);
        dbus_put_byte(&w, 0); /* flags: a reply is wanted */
        dbus_put_byte(&w, 1); /* protocol version */
        dbus_put_u32(&w, (uint32_t)body_len);
        dbus_put_u32(&w, serial);
        dbus_array_open(&w, 8);
        put_field(&w, FIELD_PATH, "o", h->path);
        if (h->interface)
                put_field(&w, FIELD_INTERFACE, "s", h->interface);
        put_field(&w, FIELD_MEMBER, "s", h->member);
        if (h->destination)
                put_field(&w, FIELD_DESTINATION, "s", h->destination);
        if (h->signature && *h->signature)
                put_field(&w, FIELD_SIGNATURE, "g", h->signature);
        dbus_array_close(&w);
        pad(&w, 8); /* the body starts at 8 */
        if (body_len)
                put_raw(&w, body->buf, body_len);
        if (w.failed) {
                dbus_writer_release(&w);
                return -ENOMEM;
        }
        *out = w.buf;
        *out_len = w.len;
        return 0;
}

/* ---- reader ---- */

static uint32_t load_u32(const uint8_t *p, bool swap)
{
        uint32_t v;

        memcpy(&v, p, 4);
        return swap ? bswap_32(v) : v;
}

static bool native_is_little(void)
{
        return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
}

long dbus_message_size(const uint8_t *buf, size_t len)
{
        if (len < 16)
                return 0;
        if ((buf[0] != LITTLE && buf[0] != BIG) || buf[3] != 1)
                return -1;
        bool swap = (buf[0] == LITTLE) != native_is_little();
        uint64_t fields = load_u32(buf + 12, swap), body = load_u32(buf + 4, swap);
        uint64_t total = align_up(16 + fields, 8) + body;
        if (fields > DBUS_MAX_MESSAGE || body > DBUS_MAX_MESSAGE || total > DBUS_MAX_MESSAGE)
                return -1;
        return (long)total;
}

/* Bounded cursor over buf[.. end). */
struct cursor {
        const uint8_t *buf;
        size_t pos, end;
        bool swap;
};

static bool cur_align(struct cursor *c, size_t a)
{
        size_t to = align_up(c->pos, a);

        if (to > c->end)
                return false;
        c->pos = to;
        return true;
}

static bool cur_u32(struct cursor *c, uint32_t *v)
{
        if (!cur_align(c, 4) || c->end - c->pos < 4)
                return false;
        *v = load_u32(c->buf + c->pos, c->swap);
        c->pos += 4;
        return true;
}

/* A string of n bytes and its NUL, with no NUL inside. */
static bool cur_chars(struct cursor *c, size_t n, const char **s)
{
        if (c->end - c->pos < n + 1 || c->buf[c->pos + n] != '\0' ||
            memchr(c->buf + c->pos, '\0', n) != NULL)
                return false;
        *s = (const char *)c->buf + c->pos;
        c->pos += n + 1;
        return true;
}

static bool cur_string(struct cursor *c, const char **s)
{
        uint32_t n;

        return cur_u32(c, &n) && cur_chars(c, n, s);
}

static bool cur_signature(struct cursor *c, const char **s)
{
        if (c->pos >= c->end)
                return false;
        size_t n = c->buf[c->pos++];
        return cur_chars(c, n, s);
}

static size_t type_align(char t)
{
        switch (t) {
        case 'y':
        case 'g':
        case 'v':
                return 1;
        case 'n':
        case 'q':
                return 2;
        case 'x':
        case 't':
        case 'd':
        case '(':
        case '{':
                return 8;
        default:
                return 4; /* b i u h s o a */
        }
}

/* Where the complete type starting at sig ends, or NULL. */
static const char *type_end(const char *sig, int depth)
{
        if (depth > DBUS_MAX_DEPTH * 2)
                return NULL;
        switch (*sig) {
        case 'a':
                return type_end(sig + 1, depth + 1);
        case '(':
        case '{': {
                char close = *sig == '(' ? ')' : '}';
                const char *p = sig + 1;
                while (p && *p && *p != close)
                        p = type_end(p, depth + 1);
                return p && *p == close ? p + 1 : NULL;
        }
        case 'y':
        case 'b':
        case 'n':
        case 'q':
        case 'i':
        case 'u':
        case 'x':
        case 't':
        case 'd':
        case 's':
        case 'o':
        case 'g':
        case 'v':
        case 'h':
                return sig + 1;
        default:
                return NULL;
        }
}

/* Step over one value of the complete type at *sig, advancing *sig. */
static bool skip_value(struct cursor *c, const char **sig, int depth)
{
        const char *end = type_end(*sig, 0);
        char t = **sig;
        uint32_t n;
        const char *s;

        if (end == NULL || depth > DBUS_MAX_DEPTH * 2 || !cur_align(c, type_align(t)))
                return false;
        switch (t) {
        case 'y':
                if (c->pos >= c->end)
                        return false;
                c->pos++;
                break;
        case 'n':
        case 'q':
                if (c->end - c->pos < 2)
                        return false;
                c->pos += 2;
                break;
        case 'b':
        case 'i':
        case 'u':
        case 'h':
                if (!cur_u32(c, &n))
                        return false;
                break;
        case 'x':
        case 't':
        case 'd':
                if (c->end - c->pos < 8)
                        return false;
                c->pos += 8;
                break;
        case 's':
        case 'o':
                if (!cur_string(c, &s))
                        return false;
                break;
        case 'g':
                if (!cur_signature(c, &s))
                        return false;
                break;
        case 'v': {
                const char *inner;
                if (!cur_signature(c, &inner) || type_end(inner, 0) == NULL ||
                    *type_end(inner, 0) != '\0' || !skip_value(c, &inner, depth + 1))
                        return false;
                break;
        }
        case 'a': {
                if (!cur_u32(c, &n) || !cur_align(c, type_align((*sig)[1])) || n > c->end - c->pos)
                        return false;
                struct cursor elems = { c->buf, c->pos, c->pos + n, c->swap };
                while (elems.pos < elems.end) {
                        const char *e = *sig + 1;
                        size_t before = elems.pos;
                        if (!skip_value(&elems, &e, depth + 1) || elems.pos == before)
                                return false;
                }
                c->pos += n;
                break;
        }
        default: { /* ( or { */
                const char *p = *sig + 1;
                while (*p != ')' && *p != '}') {
                        if (!skip_value(c, &p, depth + 1))
                                return false;
                }
                break;
        }
        }
        *sig = end;
        return true;
}

static bool read_field(struct cursor *c, struct dbus_message *m)
{
        const char *sig, *s;
        uint32_t u;

        if (!cur_align(c, 8) || c->pos >= c->end)
                return false;
        uint8_t code = c->buf[c->pos++];
        if (!cur_signature(c, &sig))
                return false;
        switch (code) {
        case FIELD_PATH:
        case FIELD_INTERFACE:
        case FIELD_MEMBER:
        case FIELD_ERROR_NAME:
        case FIELD_DESTINATION:
        case FIELD_SENDER:
                if (strcmp(sig, code == FIELD_PATH ? "o" : "s") != 0 || !cur_string(c, &s))
                        return false;
                if (code == FIELD_PATH)
                        m->path = s;
                else if (code == FIELD_INTERFACE)
                        m->interface = s;
                else if (code == FIELD_MEMBER)
                        m->member = s;
                else if (code == FIELD_ERROR_NAME)
                        m->error_name = s;
                else if (code == FIELD_SENDER)
                        m->sender = s;
                return true;
        case FIELD_REPLY_SERIAL:
                if (strcmp(sig, "u") != 0 || !cur_u32(c, &u))
                        return false;
                m->reply_serial = u;
                return true;
        case FIELD_SIGNATURE:
                return strcmp(sig, "g") == 0 && cur_signature(c, &m->signature);
        default: /* unknown fields are skipped, as the specification says */
                return type_end(sig, 0) != NULL && *type_end(sig, 0) == '\0' &&
                       skip_value(c, &sig, 0);
        }
}

int dbus_message_parse(uint8_t *buf, size_t len, struct dbus_message *m)
{
        long size = dbus_message_size(buf, len);

        *m = (struct dbus_message){ .buf = buf, .len = len, .signature = "" };
        if (size <= 0 || (size_t)size != len)
                goto bad;
        m->swap = (buf[0] == LITTLE) != native_is_little();
        m->type = buf[1];
        m->body_len = load_u32(buf + 4, m->swap);
        m->serial = load_u32(buf + 8, m->swap);
        uint32_t fields = load_u32(buf + 12, m->swap);
        struct cursor c = { buf, 16, 16 + (size_t)fields, m->swap };
        while (c.pos < c.end) {
                if (!read_field(&c, m))
                        goto bad;
        }
        m->body_at = align_up(16 + (size_t)fields, 8);
        if (m->type < DBUS_METHOD_CALL || m->type > DBUS_SIGNAL || m->body_at + m->body_len != len)
                goto bad;
        if ((m->type == DBUS_METHOD_RETURN || m->type == DBUS_ERROR) && m->reply_serial == 0)
                goto bad;
        if (m->type == DBUS_ERROR && m->error_name == NULL)
                goto bad;
        if (m->type == DBUS_SIGNAL &&
            (m->path == NULL || m->interface == NULL || m->member == NULL))
                goto bad;
        return 0;
bad:
        free(buf);
        *m = (struct dbus_message){ 0 };
        return -EBADMSG;
}

void dbus_message_release(struct dbus_message *m)
{
        free(m->buf);
        *m = (struct dbus_message){ 0 };
}

void dbus_reader_init(struct dbus_reader *r, const struct dbus_message *m)
{
        *r = (struct dbus_reader){
                .m = m, .pos = m->body_at, .end = m->body_at + m->body_len, .sig = m->signature
        };
}

/* Take one value of type t off the signature and a cursor at the value. */
static bool begin(struct dbus_reader *r, char t, struct cursor *c)
{
        if (r->failed || *r->sig != t) {
                r->failed = true;
                return false;
        }
        r->sig++;
        /* Alignment counts from the message's start; the body starts at 8. */
        *c = (struct cursor){ r->m->buf, r->pos, r->end, r->m->swap };
        return true;
}

static bool finish(struct dbus_reader *r, bool ok, const struct cursor *c)
{
        if (!ok) {
                r->failed = true;
                return false;
        }
        r->pos = c->pos;
        return true;
}

bool dbus_get_u32(struct dbus_reader *r, uint32_t *v)
{
        struct cursor c;

        return begin(r, 'u', &c) && finish(r, cur_u32(&c, v), &c);
}

bool dbus_get_bool(struct dbus_reader *r, bool *v)
{
        struct cursor c;
        uint32_t u = 0;

        if (!begin(r, 'b', &c) || !finish(r, cur_u32(&c, &u) && u <= 1, &c))
                return false;
        *v = u == 1;
        return true;
}

bool dbus_get_string(struct dbus_reader *r, const char **v)
{
        struct cursor c;
        char t = *r->sig == 'o' ? 'o' : 's';

        return begin(r, t, &c) && finish(r, cur_string(&c, v), &c);
}

bool dbus_get_variant(struct dbus_reader *r, const char *sig)
{
        struct cursor c;
        const char *inner;

        if (!begin(r, 'v', &c) || !finish(r, cur_signature(&c, &inner), &c))
                return false;
        if (strcmp(inner, sig) != 0) {
                r->failed = true;
                return false;
        }
        /* What follows is the variant's value: the message's signature holds
         * it only as "v", so read by the variant's own. */
        r->sig = inner;
        return true;
}
