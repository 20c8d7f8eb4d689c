/* libFuzzer harness: the process document of `exec --process FILE`
 * (oci_process_parse). */
#include "common/error.h"
#include "oci/config.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct oci_process *p = oci_process_parse((const char *)data, size, "process.json", &err);

        if (p != NULL)
                oci_process_free(p);
        sb_error_clear(&err);
        return 0;
}
