/* The D-Bus wire format, as much of it as the systemd cgroup driver needs:
 * a writer for method calls and a bounded reader for what systemd sends
 * back. sbrun speaks D-Bus itself rather than through libsystemd so that it
 * stays one static binary (Debian ships no static libsystemd, and a dynamic
 * sbrun pays the loader on every exec: docs/performance.md).
 *
 * Writer: values are appended in the order of a signature the caller
 * gives with the message; alignment is the wire's (relative to the body's
 * start, which the message puts at an 8-byte boundary). The first failure
 * sticks: a writer that ran out of memory or closed a container it did
 * not open reports it once, at dbus_message_build.
 *
 * Reader: every read is bounded by the message it came in; a value that
 * runs past its end, a string without its NUL, or a type other than the
 * one asked for fails the reader (and every read after it). */
#ifndef SB_DBUS_MESSAGE_H
#define SB_DBUS_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DBUS_MAX_DEPTH 16
/* systemd's messages to us are small; the wire's own limit is 128 MiB. */
#define DBUS_MAX_MESSAGE (16u << 20)

enum dbus_type {
        DBUS_METHOD_CALL = 1,
        DBUS_METHOD_RETURN = 2,
        DBUS_ERROR = 3,
        DBUS_SIGNAL = 4,
};

struct dbus_writer {
        uint8_t *buf;
        size_t len, cap;
        bool failed;
        /* Open arrays: where each one's length is, and where its elements start. */
        size_t arr_len_at[DBUS_MAX_DEPTH], arr_start[DBUS_MAX_DEPTH];
        int depth;
};

void dbus_writer_release(struct dbus_writer *w);
void dbus_put_byte(struct dbus_writer *w, uint8_t v);
void dbus_put_bool(struct dbus_writer *w, bool v);
void dbus_put_u32(struct dbus_writer *w, uint32_t v);
void dbus_put_u64(struct dbus_writer *w, uint64_t v);
/* "s" and "o" (an object path is a string on the wire). */
void dbus_put_string(struct dbus_writer *w, const char *s);
void dbus_put_signature(struct dbus_writer *w, const char *sig);
/* An array whose elements align to elem_align (1, 4 or 8: 8 for structs). */
void dbus_array_open(struct dbus_writer *w, size_t elem_align);
void dbus_array_close(struct dbus_writer *w);
/* A struct or dict entry starts at 8. */
void dbus_struct_open(struct dbus_writer *w);
/* A variant: its signature, then the caller appends the one value. */
void dbus_variant_open(struct dbus_writer *w, const char *sig);

/* A method call's header fields. */
struct dbus_call_head {
        const char *destination; /* NULL on a direct connection to systemd */
        const char *path;
        const char *interface;
        const char *member;
        const char *signature; /* of body; "" or NULL for none */
};

/* The whole message (header, padding, body) in *out, caller frees. */
int dbus_message_build(const struct dbus_call_head *h, uint32_t serial,
                       const struct dbus_writer *body, uint8_t **out, size_t *out_len);

/* How many bytes the message starting at buf takes, once 16 bytes are
 * there: 0 when fewer than 16 are, -1 when the header is not D-Bus or the
 * message is larger than DBUS_MAX_MESSAGE. */
long dbus_message_size(const uint8_t *buf, size_t len);

/* A received message; its strings point into buf. */
struct dbus_message {
        uint8_t *buf;
        size_t len;
        bool swap; /* big-endian sender */
        enum dbus_type type;
        uint32_t serial, reply_serial;
        const char *path, *interface, *member, *error_name, *signature;
        /* The unique name a bus says sent it (the bus sets it: a client
         * cannot forge it); NULL on a direct connection, which has one peer. */
        const char *sender;
        size_t body_at;
        uint32_t body_len;
};

/* Parse one whole message (buf, len: as dbus_message_size said), taking
 * buf. On failure buf is freed. */
int dbus_message_parse(uint8_t *buf, size_t len, struct dbus_message *m);
void dbus_message_release(struct dbus_message *m);

struct dbus_reader {
        const struct dbus_message *m;
        size_t pos, end; /* offsets in m->buf */
        const char *sig; /* what is left of the signature to read */
        bool failed;
};

/* Read the body from its start, by its signature. */
void dbus_reader_init(struct dbus_reader *r, const struct dbus_message *m);
bool dbus_get_u32(struct dbus_reader *r, uint32_t *v);
bool dbus_get_bool(struct dbus_reader *r, bool *v);
/* "s" or "o": points into the message. */
bool dbus_get_string(struct dbus_reader *r, const char **v);
/* Enter a variant whose value has type sig (a single complete type): the
 * reads after it read that value, and nothing after it (a variant is the
 * last value the driver reads of any message). */
bool dbus_get_variant(struct dbus_reader *r, const char *sig);

#endif
