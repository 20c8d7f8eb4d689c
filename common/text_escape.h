/* Text from a file shown on a terminal (`sbrun audit --format table`): one
 * line per record, whatever the text holds. */
#ifndef SB_TEXT_ESCAPE_H
#define SB_TEXT_ESCAPE_H

/* A copy of s with what would move the cursor, start a line or drive the
 * terminal written as text: \n, \r, \t, other control characters (C0, DEL,
 * C1) as \xHH or \uHHHH, the line and paragraph separators and the
 * bidirectional controls (which reorder what follows them) as \uHHHH, and
 * bytes that are no UTF-8 as \xHH. Everything else, backslashes included,
 * is left as it is. NULL when out of memory. */
char *sb_text_escape(const char *s);

#endif
