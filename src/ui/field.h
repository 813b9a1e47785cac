/* field.h - a screen's text field: the key table's editing keys (KC_EDIT,
 * ui/keys.c) and typed characters applied to a base/lineedit line.  The
 * playground's statement, the quiz's and the lesson page's typed answers
 * are edited here; canvas_field draws them. */
#ifndef MHAVIZ_FIELD_H
#define MHAVIZ_FIELD_H

#include "base/lineedit.h"
#include "ui/ui.h"

/* A key as an edit of e: its Action a one of KC_EDIT's (ACT_LEFT/RIGHT,
 * ACT_HOME_LINE/END_LINE, ACT_ERASE, ACT_DELETE, ACT_KILL_*: the screen's
 * contexts hold KC_EDIT), or with ACT_NONE a character typed in (any code
 * point key that is no control character).  Returns UI_REDRAW when the line
 * or its cursor changed, UI_HANDLED when the key is the field's but did
 * nothing (a full line, Left at the start), UI_NONE when it is not the
 * field's. */
int field_key(LineEdit *e, Action a, int key);

#endif
