/* libFuzzer harness: the operator's policy file (operator_policy_parse,
 * what operator_policy_load runs on the file's text). */
#include "common/error.h"
#include "spec/operator_policy.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sb_error err = { 0 };
        struct operator_policy policy;

        if (operator_policy_parse((const char *)data, size, "policy.json", &policy, &err) == 0)
                operator_policy_release(&policy);
        sb_error_clear(&err);
        return 0;
}
