#ifndef SB_JSON_ESCAPE_H
#define SB_JSON_ESCAPE_H

/* A JSON string body (without quotes) for s; caller frees; NULL on ENOMEM.
 * A byte that is no part of valid UTF-8 becomes the text \xHH. */
char *sb_json_escape(const char *s);

#endif
