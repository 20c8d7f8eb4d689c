/* libFuzzer harness: config.json as `create` reads it (oci_config_parse).
 * Any input must give a config or an error, never a crash or a leak. */
#include "common/error.h"
#include "oci/config.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);

        if (c != NULL)
                oci_config_free(c);
        sb_error_clear(&err);
        return 0;
}
