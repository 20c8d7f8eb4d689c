/* libFuzzer harness: a container's state.json record
 * (oci_state_from_record_json). A record that parses is written back both
 * ways, and the record written must parse again: `sbrun` rewrites state.json
 * on every transition and must be able to read what it wrote. */
#include "common/error.h"
#include "oci/state.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct oci_state *s =
                oci_state_from_record_json((const char *)data, size, "state.json", &err);
        char *record, *doc;
        struct oci_state *again;

        sb_error_clear(&err);
        if (s == NULL)
                return 0;
        doc = oci_state_to_json(s, true, &err);
        sb_error_clear(&err);
        free(doc);
        record = oci_state_to_record_json(s, &err);
        if (record == NULL) {
                sb_error_clear(&err);
                oci_state_free(s);
                return 0;
        }
        again = oci_state_from_record_json(record, strlen(record), "state.json (rewritten)", &err);
        if (again == NULL) {
                fprintf(stderr, "a record sbrun wrote does not parse: %s\n%s\n",
                        err.msg ? err.msg : "?", record);
                abort();
        }
        oci_state_free(again);
        free(record);
        oci_state_free(s);
        return 0;
}
