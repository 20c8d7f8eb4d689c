/* A line of the audit trail read back (runtime/audit/audit_line.h writes
 * them): what `sbrun audit` selects by and shows in its table. */
#ifndef SB_OCI_AUDIT_RECORD_H
#define SB_OCI_AUDIT_RECORD_H

#include <stddef.h>

struct sb_error;

struct audit_record {
        char *time, *event, *id; /* NULL where the line has none */
        char *parent;            /* caller.parent */
        long long uid;           /* caller.uid, -1 if none */
        char *detail;            /* one phrase for the table: what the event did */
};

/* NULL with *err set when the line is no JSON object. */
struct audit_record *audit_record_parse(const char *line, size_t len, struct sb_error *err);
void audit_record_free(struct audit_record *r);

#endif
