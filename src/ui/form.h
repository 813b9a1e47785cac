/* form.h - the configuration form, and the keys that lead to it from the
 * home menu and the walkthrough. */
#ifndef MHAVIZ_FORM_H
#define MHAVIZ_FORM_H
#include "ui/ui.h"

/* The configuration form (seq, d_model, heads, kv_heads, seed, causal):
 * Enter applies through ui_set_config, an invalid draft is refused in the
 * status line and the form stays open. */
Screen *form_open(Ui *ui);
/* The actions the home menu and the walkthrough share: the configuration
 * form (c, in *push) and the quick configuration keys.  UI_* flags, or
 * UI_NONE when a is not one of them (? is every screen's, the stack's). */
int form_shared_action(Ui *ui, Action a, Screen **push);

#endif
