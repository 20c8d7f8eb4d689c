#include "spec/floor.h"

#include "common/error.h"
#include "common/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *floor_action_name(enum floor_action action)
{
        switch (action) {
        case FLOOR_ADDED:
                return "added";
        case FLOOR_DROPPED:
                return "dropped";
        case FLOOR_CLAMPED:
                return "clamped";
        case FLOOR_FORCED:
                return "forced";
        case FLOOR_REFUSED:
                return "refused";
        }
        return "changed";
}

static int record(struct floor_report *report, enum floor_action action, const char *field,
                  const char *requested, const char *effective, const char *rule)
{
        struct floor_change *grown =
                realloc(report->changes, (report->n + 1) * sizeof(*report->changes));
        if (grown == NULL)
                return -1;
        report->changes = grown;
        struct floor_change *c = &grown[report->n];
        c->action = action;
        c->field = strdup(field);
        c->requested = strdup(requested ? requested : "(none)");
        c->effective = strdup(effective ? effective : "(none)");
        c->rule = strdup(rule);
        report->n++;
        return c->field && c->requested && c->effective && c->rule ? 0 : -1;
}

int floor_record(struct floor_report *report, struct sb_error *err, enum floor_action action,
                 const char *field, const char *requested, const char *effective, const char *rule)
{
        if (record(report, action, field, requested, effective, rule) < 0)
                return sb_fail(err, ENOMEM, "%s", field);
        return 0;
}

int floor_note(struct floor_report *report, struct sb_error *err, enum floor_action action,
               const char *field, const char *requested, const char *effective, const char *rule)
{
        if (report->log) {
                if (action == FLOOR_DROPPED)
                        sb_warn("%s: %s dropped (rule: %s)", field, requested, rule);
                else
                        sb_warn("%s: requested %s, effective %s (rule: %s)", field,
                                requested ? requested : "(none)", effective ? effective : "(none)",
                                rule);
        }
        return floor_record(report, err, action, field, requested, effective, rule);
}

int floor_refuse(struct floor_report *report, struct sb_error *err, const char *field,
                 const char *value, const char *rule)
{
        if (report->explain) {
                if (record(report, FLOOR_REFUSED, field, value, "refused", rule) < 0)
                        return sb_fail(err, ENOMEM, "%s", field);
                return 0;
        }
        return sb_fail(err, 0, "%s: %s refused (rule: %s)", field, value, rule);
}

void floor_report_release(struct floor_report *report)
{
        for (size_t i = 0; i < report->n; i++) {
                free(report->changes[i].field);
                free(report->changes[i].requested);
                free(report->changes[i].effective);
                free(report->changes[i].rule);
        }
        free(report->changes);
        report->changes = NULL;
        report->n = 0;
}
