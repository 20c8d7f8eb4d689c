/* libFuzzer harness: what systemd or the bus sends sbrun's D-Bus client
 * (runtime/dbus/dbus_message.h): a stream of messages, each framed by
 * dbus_message_size and parsed, then read as the systemd driver reads
 * them (a JobRemoved signal, a job path, a property behind its variant,
 * an error's text). Every read must stay inside the message. */
#include "runtime/dbus/dbus_connection.h"
#include "runtime/dbus/dbus_message.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_as_driver(const struct dbus_message *m)
{
        struct dbus_reader r;
        const char *s;
        uint32_t u;
        bool b;

        (void)dbus_error_text(m);
        dbus_reader_init(&r, m);
        if (dbus_get_u32(&r, &u) && dbus_get_string(&r, &s) && dbus_get_string(&r, &s))
                (void)dbus_get_string(&r, &s);
        dbus_reader_init(&r, m);
        (void)dbus_get_string(&r, &s);
        dbus_reader_init(&r, m);
        if (dbus_get_variant(&r, "s"))
                (void)dbus_get_string(&r, &s);
        dbus_reader_init(&r, m);
        if (dbus_get_variant(&r, "b"))
                (void)dbus_get_bool(&r, &b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        while (size > 0) {
                long n = dbus_message_size(data, size);
                if (n <= 0 || (size_t)n > size)
                        return 0;
                uint8_t *buf = malloc((size_t)n);
                struct dbus_message m;
                if (buf == NULL)
                        return 0;
                memcpy(buf, data, (size_t)n);
                if (dbus_message_parse(buf, (size_t)n, &m) == 0) {
                        read_as_driver(&m);
                        dbus_message_release(&m);
                }
                data += n;
                size -= (size_t)n;
        }
        return 0;
}
