/* The one size parser of sbrun (common/size_parse.h): the units and their
 * overflow at each shift, the flags each caller passes, and the texts that
 * strtoull would have taken (a sign, a space, "-1" as 2^64-1). */
#include "common/size_parse.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define ALL (SIZE_ZERO | SIZE_UNLIMITED | SIZE_TERA | SIZE_BYTE_SUFFIX)

static void expect_size(const char *text, unsigned int flags, int64_t want)
{
        int64_t got = 12345;
        int r = size_parse(text, flags, &got);

        if (r != 0)
                fail_msg("\"%s\" (flags %#x): %d, not a size", text, flags, r);
        if (got != want)
                fail_msg("\"%s\" (flags %#x): %lld, not %lld", text, flags, (long long)got,
                         (long long)want);
}

static void expect_refused(const char *text, unsigned int flags, int want_errno)
{
        int64_t got = 12345;
        int r = size_parse(text, flags, &got);

        if (r != -want_errno)
                fail_msg("\"%s\" (flags %#x): %d, not %d", text, flags, r, -want_errno);
        assert_int_equal(got, 12345); /* untouched on failure */
}

static void test_units(void **state)
{
        (void)state;
        expect_size("1", 0, 1);
        expect_size("1048576", 0, 1048576);
        expect_size("4k", 0, 4096);
        expect_size("4K", 0, 4096);
        expect_size("512m", 0, 512LL << 20);
        expect_size("512M", 0, 512LL << 20);
        expect_size("1g", 0, 1LL << 30);
        expect_size("1G", 0, 1LL << 30);
        expect_size("2t", SIZE_TERA, 2LL << 40);
        expect_size("2T", SIZE_TERA, 2LL << 40);
        expect_refused("2t", 0, EINVAL);
        /* Leading zeros are digits like any other. */
        expect_size("000000000000000000000000000000000000000064k", 0, 64 << 10);
        expect_size("9223372036854775807", 0, INT64_MAX);
}

static void test_byte_suffix(void **state)
{
        (void)state;
        expect_size("512b", SIZE_BYTE_SUFFIX, 512);
        expect_size("512B", SIZE_BYTE_SUFFIX, 512);
        expect_size("64mb", SIZE_BYTE_SUFFIX, 64LL << 20);
        expect_size("64MB", SIZE_BYTE_SUFFIX, 64LL << 20);
        expect_size("1tb", SIZE_BYTE_SUFFIX | SIZE_TERA, 1LL << 40);
        expect_size("64m", SIZE_BYTE_SUFFIX, 64LL << 20);
        expect_refused("64mb", 0, EINVAL);
        expect_refused("512b", 0, EINVAL);
        expect_refused("64bb", SIZE_BYTE_SUFFIX, EINVAL);
        expect_refused("64bm", SIZE_BYTE_SUFFIX, EINVAL);
        expect_refused("b", SIZE_BYTE_SUFFIX, EINVAL);
        expect_refused("mb", SIZE_BYTE_SUFFIX, EINVAL);
}

static void test_zero_and_unlimited(void **state)
{
        (void)state;
        expect_refused("0", 0, EINVAL);
        expect_refused("0k", SIZE_TERA, EINVAL);
        expect_refused("00", 0, EINVAL);
        expect_size("0", SIZE_ZERO, 0);
        expect_size("0g", SIZE_ZERO, 0);

        expect_refused("-1", 0, EINVAL);
        expect_refused("-1", SIZE_TMPFS, EINVAL);
        expect_size("-1", SIZE_UNLIMITED, -1);
        expect_size("-1", ALL, -1);
        /* Only -1 itself: no other negative, no -1 with a unit. */
        expect_refused("-2", ALL, EINVAL);
        expect_refused("-0", ALL, EINVAL);
        expect_refused("-01", ALL, EINVAL);
        expect_refused("-1k", ALL, EINVAL);
        expect_refused("-1b", ALL, EINVAL);
        expect_refused("-9223372036854775808", ALL, EINVAL);
        expect_refused("-18446744073709551615", ALL, EINVAL);
}

/* The largest value of each unit is taken, one more is past INT64_MAX. */
static void test_overflow_at_each_shift(void **state)
{
        (void)state;
        expect_size("9223372036854775807", ALL, INT64_MAX);
        expect_refused("9223372036854775808", ALL, ERANGE);
        expect_size("9007199254740991k", ALL, 9007199254740991LL << 10);
        expect_refused("9007199254740992k", ALL, ERANGE);
        expect_size("8796093022207m", ALL, 8796093022207LL << 20);
        expect_refused("8796093022208m", ALL, ERANGE);
        expect_size("8589934591g", ALL, 8589934591LL << 30);
        expect_refused("8589934592g", ALL, ERANGE);
        expect_refused("17179869184G", ALL, ERANGE); /* 2^64: wraps to 0 with a bare shift */
        expect_size("8388607t", ALL, 8388607LL << 40);
        expect_refused("8388608t", ALL, ERANGE);
        expect_refused("16777216T", ALL, ERANGE);            /* 2^64 again */
        expect_refused("18446744073709551615", ALL, ERANGE); /* what strtoull made of -1 */
        expect_refused("18446744073709551616", ALL, ERANGE);
        expect_refused("99999999999999999999k", SIZE_TMPFS, ERANGE);
        expect_refused("18446744073709551617g", SIZE_TMPFS, ERANGE);
}

static void test_huge_digit_strings(void **state)
{
        char digits[4096 + 2];
        (void)state;

        memset(digits, '9', 4096);
        digits[4096] = '\0';
        expect_refused(digits, ALL, ERANGE);
        /* Syntax is judged before range: garbage after a long number is
         * still not a size. */
        digits[4096] = 'x';
        digits[4097] = '\0';
        expect_refused(digits, ALL, EINVAL);
        memset(digits, '0', 4096);
        digits[4095] = '7';
        digits[4096] = 'k';
        expect_size(digits, ALL, 7 << 10);
}

static void test_malformed(void **state)
{
        static const char *const bad[] = {
                "",    "12x",  "12X", " 5",  "5 ",  "+5",  "++5",  "5k ", "1.5g",
                "1,5", "0x10", "1e3", "k",   "1kk", "1km", "1kib", "1 k", "\t5",
                "5\n", "1p",   "1e",  "50%", "-",   "--1", "- 1",  "−1",
        };
        (void)state;

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                expect_refused(bad[i], ALL, EINVAL);
        expect_refused(NULL, ALL, EINVAL);
}

/* What each caller passes (docs/policy.md, the update flags, size=). */
static void test_caller_syntaxes(void **state)
{
        (void)state;
        /* tmpfs size=: 0 is the kernel's "no limit", t is known, no b. */
        expect_size("0", SIZE_TMPFS, 0);
        expect_size("64m", SIZE_TMPFS, 64LL << 20);
        expect_size("1t", SIZE_TMPFS, 1LL << 40);
        expect_refused("64mb", SIZE_TMPFS, EINVAL);
        expect_refused("-1", SIZE_TMPFS, EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_units),
                cmocka_unit_test(test_byte_suffix),
                cmocka_unit_test(test_zero_and_unlimited),
                cmocka_unit_test(test_overflow_at_each_shift),
                cmocka_unit_test(test_huge_digit_strings),
                cmocka_unit_test(test_malformed),
                cmocka_unit_test(test_caller_syntaxes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
