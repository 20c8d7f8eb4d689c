/* SHA-256 (FIPS 180-4), for the digests of the audit trail: the policy
 * file's and the effective confinement's. Not for secrets: no constant-time
 * promises are needed for what is hashed here. */
#ifndef SB_SHA256_H
#define SB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
        uint32_t h[8];
        uint64_t len; /* bytes so far */
        uint8_t block[64];
        size_t used;
};

#define SHA256_HEX_LEN 64

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* hex gets SHA256_HEX_LEN lowercase digits and a NUL. */
void sha256_final_hex(struct sha256 *s, char hex[SHA256_HEX_LEN + 1]);
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

#endif
