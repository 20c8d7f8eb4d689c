/* linux.resources.devices → the cgroup v2 device program: the program is
 * run here by a small interpreter of the few eBPF instructions the
 * generator emits (the kernel has no BPF_PROG_TEST_RUN for
 * BPF_PROG_TYPE_CGROUP_DEVICE), so each test asks what the kernel would
 * answer for one open or mknod. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "runtime/cgroup/device_filter.h"

#include "common/error.h"
#include "oci/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define R BPF_DEVCG_ACC_READ
#define W BPF_DEVCG_ACC_WRITE
#define M BPF_DEVCG_ACC_MKNOD

/* Runs the program on one struct bpf_cgroup_dev_ctx; fails the test on an
 * instruction the generator is not meant to emit or a jump out of range. */
static uint64_t run(const struct device_filter *f, char type, int access, uint32_t major,
                    uint32_t minor)
{
        uint32_t ctx[3] = {
                (uint32_t)(type == 'c' ? BPF_DEVCG_DEV_CHAR : BPF_DEVCG_DEV_BLOCK) |
                        (uint32_t)access << 16,
                major,
                minor,
        };
        uint64_t reg[11] = { 0 };
        bool set[11] = { false };

        set[BPF_REG_1] = true;
        for (size_t pc = 0; pc < f->n; pc++) {
                const struct bpf_insn *i = &f->insns[pc];
                uint8_t d = i->dst_reg, s = i->src_reg;
                assert_true(d < 11 && s < 11);
                switch (i->code) {
                case BPF_LDX | BPF_MEM | BPF_W:
                        assert_int_equal(s, BPF_REG_1);
                        assert_true(i->off >= 0 && i->off % 4 == 0 && i->off < 12);
                        reg[d] = ctx[i->off / 4];
                        break;
                case BPF_ALU | BPF_AND | BPF_K:
                        assert_true(set[d]);
                        reg[d] = (uint32_t)reg[d] & (uint32_t)i->imm;
                        break;
                case BPF_ALU | BPF_RSH | BPF_K:
                        assert_true(set[d]);
                        reg[d] = (uint32_t)reg[d] >> i->imm;
                        break;
                case BPF_ALU | BPF_MOV | BPF_K:
                        reg[d] = (uint32_t)i->imm;
                        break;
                case BPF_ALU | BPF_MOV | BPF_X:
                        assert_true(set[s]);
                        reg[d] = (uint32_t)reg[s];
                        break;
                case BPF_JMP | BPF_JNE | BPF_K:
                case BPF_JMP | BPF_JEQ | BPF_K: {
                        assert_true(set[d]);
                        bool eq = reg[d] == (uint64_t)(int64_t)i->imm;
                        assert_true(i->off >= 0 && pc + 1 + (size_t)i->off < f->n);
                        if (eq == (BPF_OP(i->code) == BPF_JEQ))
                                pc += (size_t)i->off;
                        continue;
                }
                case BPF_JMP | BPF_EXIT:
                        assert_true(set[BPF_REG_0]);
                        return reg[BPF_REG_0];
                default:
                        fail_msg("unexpected instruction 0x%02x at %zu", i->code, pc);
                }
                set[d] = true;
        }
        fail_msg("the program runs off its end");
        return 0;
}

#define MAX_RULES 8

/* A linux section with the given rules and device nodes. */
struct fixture {
        struct oci_linux linux_;
        struct oci_resources res;
        struct oci_device_cgroup rules[MAX_RULES];
        struct oci_device nodes[2];
        struct device_filter f;
};

static void add_rule(struct fixture *fx, bool allow, const char *type, int64_t major, int64_t minor,
                     const char *access)
{
        struct oci_device_cgroup *d = &fx->rules[fx->res.n_devices++];

        d->allow = allow;
        d->type = (char *)type;
        d->has_major = major != -2;
        d->has_minor = minor != -2;
        d->major = major;
        d->minor = minor;
        d->access = (char *)access;
}

static void build(struct fixture *fx)
{
        struct sb_error err = { 0 };

        fx->res.devices = fx->rules;
        fx->linux_.resources = &fx->res;
        fx->linux_.devices = fx->nodes;
        if (device_filter_build(&fx->linux_, &fx->f, &err) < 0)
                fail_msg("device_filter_build: %s", err.msg);
}

#define ANY (-2) /* major or minor absent from the rule */

static void test_defaults_only(void **state)
{
        struct fixture fx = { 0 };

        build(&fx);
        /* The nodes every container has, as runc allows them. */
        assert_int_equal(run(&fx.f, 'c', R | W, 1, 3), 1);
        assert_int_equal(run(&fx.f, 'c', R, 1, 5), 1);
        assert_int_equal(run(&fx.f, 'c', R | W, 5, 2), 1);
        assert_int_equal(run(&fx.f, 'c', R | W, 136, 7), 1);
        assert_int_equal(run(&fx.f, 'c', R | W, 10, 200), 1);
        /* mknod of any node, but not opening it. */
        assert_int_equal(run(&fx.f, 'b', M, 8, 0), 1);
        assert_int_equal(run(&fx.f, 'b', R, 8, 0), 0);
        assert_int_equal(run(&fx.f, 'c', R, 1, 1), 0);     /* /dev/mem */
        assert_int_equal(run(&fx.f, 'c', R | M, 1, 1), 0); /* needs both */
        assert_int_equal(run(&fx.f, 'c', W, 10, 229), 0);  /* /dev/fuse */
        device_filter_release(&fx.f);
}

/* The engines' usual list: deny all, then their own allows. */
static void test_deny_all_then_allow(void **state)
{
        struct fixture fx = { 0 };

        add_rule(&fx, false, NULL, ANY, ANY, "rwm");
        add_rule(&fx, true, "c", 10, 229, "rw");
        build(&fx);
        assert_int_equal(run(&fx.f, 'c', R | W, 10, 229), 1);
        assert_int_equal(run(&fx.f, 'c', R, 10, 228), 0);
        assert_int_equal(run(&fx.f, 'b', R, 10, 229), 0); /* the type counts */
        /* The defaults come after "deny all", as with runc. */
        assert_int_equal(run(&fx.f, 'c', R, 1, 5), 1);
        device_filter_release(&fx.f);
}

/* A node linux.devices defines at a default's path loses that default. */
static void test_redefined_default_path(void **state)
{
        struct fixture fx = { 0 };

        fx.nodes[0] = (struct oci_device){
                .path = (char *)"/dev/zero", .type = 'c', .major = 1, .minor = 5
        };
        fx.linux_.n_devices = 1;
        add_rule(&fx, false, "a", ANY, ANY, "rwm");
        add_rule(&fx, true, "c", 1, 3, "rwm");
        build(&fx);
        assert_int_equal(run(&fx.f, 'c', R, 1, 5), 0);
        assert_int_equal(run(&fx.f, 'c', R | W, 1, 3), 1);
        device_filter_release(&fx.f);
}

static void test_last_match_wins_per_bit(void **state)
{
        struct fixture fx = { 0 };

        add_rule(&fx, true, "c", 10, 229, "rwm");
        add_rule(&fx, false, "c", 10, 229, "w");
        build(&fx);
        assert_int_equal(run(&fx.f, 'c', R, 10, 229), 1);
        assert_int_equal(run(&fx.f, 'c', W, 10, 229), 0);
        assert_int_equal(run(&fx.f, 'c', R | W, 10, 229), 0); /* O_RDWR asks for both */
        device_filter_release(&fx.f);

        /* Two allows, one bit each, together allow both. */
        struct fixture two = { 0 };
        add_rule(&two, true, "c", 10, 229, "r");
        add_rule(&two, true, "c", 10, 229, "w");
        build(&two);
        assert_int_equal(run(&two.f, 'c', R | W, 10, 229), 1);
        assert_int_equal(run(&two.f, 'c', M, 10, 229), 1); /* the mknod default */
        device_filter_release(&two.f);

        /* A later deny of everything wins over an earlier allow. */
        struct fixture later = { 0 };
        add_rule(&later, true, "c", 10, 229, "rwm");
        add_rule(&later, false, "a", ANY, ANY, "rwm");
        build(&later);
        assert_int_equal(run(&later.f, 'c', R, 10, 229), 0);
        assert_int_equal(run(&later.f, 'c', R, 1, 3), 1); /* defaults still follow */
        device_filter_release(&later.f);
}

static void test_wildcards(void **state)
{
        struct fixture fx = { 0 };

        add_rule(&fx, true, "c", 4, ANY, "r");   /* minor absent */
        add_rule(&fx, true, "b", -1, 0, "rw");   /* -1 is a wildcard too */
        add_rule(&fx, true, "a", 7, ANY, "rwm"); /* both types */
        add_rule(&fx, false, "b", 7, 1, "r");
        build(&fx);
        assert_int_equal(run(&fx.f, 'c', R, 4, 64), 1);
        assert_int_equal(run(&fx.f, 'c', W, 4, 64), 0);
        assert_int_equal(run(&fx.f, 'b', R | W, 8, 0), 1);
        assert_int_equal(run(&fx.f, 'b', R, 8, 1), 0);
        assert_int_equal(run(&fx.f, 'c', R | W, 7, 1), 1);
        assert_int_equal(run(&fx.f, 'b', R, 7, 2), 1);
        assert_int_equal(run(&fx.f, 'b', R, 7, 1), 0);
        device_filter_release(&fx.f);
}

/* A major no device can have matches nothing, rather than wrapping round
 * to a real one. */
static void test_out_of_range_numbers(void **state)
{
        struct fixture fx = { 0 };

        add_rule(&fx, true, "c", (int64_t)UINT32_MAX + 1, ANY, "rwm");
        add_rule(&fx, true, "c", (int64_t)INT32_MAX + 2, ANY, "rwm");
        build(&fx);
        assert_int_equal(run(&fx.f, 'c', R, 0, 0), 0);
        assert_int_equal(run(&fx.f, 'c', R, 1, 0), 0);
        assert_int_equal(run(&fx.f, 'c', R, (uint32_t)INT32_MAX + 2, 0), 0);
        device_filter_release(&fx.f);
}

static void test_access_required(void **state)
{
        struct fixture fx = { 0 };
        struct sb_error err = { 0 };

        add_rule(&fx, true, "c", 1, 1, "r");
        add_rule(&fx, true, "c", 1, 1, NULL);
        fx.res.devices = fx.rules;
        fx.linux_.resources = &fx.res;
        assert_int_equal(device_filter_build(&fx.linux_, &fx.f, &err), -1);
        assert_string_equal(err.msg, "linux.resources.devices[1].access: required (a combination "
                                     "of r, w and m)");
        sb_error_clear(&err);
        /* No linux section at all: the defaults. */
        assert_int_equal(device_filter_build(NULL, &fx.f, &err), 0);
        assert_int_equal(run(&fx.f, 'c', R, 1, 3), 1);
        assert_int_equal(run(&fx.f, 'c', R, 1, 1), 0);
        device_filter_release(&fx.f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_only),
                cmocka_unit_test(test_deny_all_then_allow),
                cmocka_unit_test(test_redefined_default_path),
                cmocka_unit_test(test_last_match_wins_per_bit),
                cmocka_unit_test(test_wildcards),
                cmocka_unit_test(test_out_of_range_numbers),
                cmocka_unit_test(test_access_required),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
