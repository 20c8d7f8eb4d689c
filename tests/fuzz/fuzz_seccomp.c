/* libFuzzer harness: linux.seccomp of a config.json compiled to BPF in
 * memory (seccomp_compile, below the cache of runtime/seccomp/seccomp_cache.c:
 * nothing is written, nothing is loaded), with its cache key and load flags
 * (which ask the kernel about the flags with a NULL program: nothing is
 * installed). */
#include "common/error.h"
#include "oci/config.h"
#include "runtime/seccomp/seccomp_compile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct oci_config *c = oci_config_parse((const char *)data, size, "config.json", &err);
        uint8_t *bpf = NULL, *key = NULL;
        size_t len = 0;
        uint32_t flags;

        sb_error_clear(&err);
        if (c == NULL)
                return 0;
        if (c->linux_ != NULL && c->linux_->seccomp != NULL) {
                const struct oci_seccomp *s = c->linux_->seccomp;

                if (seccomp_profile_key(s, &key, &len, &err) == 0)
                        free(key);
                sb_error_clear(&err);
                if (seccomp_compile(s, &bpf, &len, &err) == 0)
                        free(bpf);
                sb_error_clear(&err);
                seccomp_load_flags(s, &flags, &err);
                sb_error_clear(&err);
                seccomp_profile_uses_notify(s);
        }
        oci_config_free(c);
        return 0;
}
