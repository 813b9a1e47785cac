/* field.c - the editing keys of a text field (field.h). */
#include "ui/field.h"

#include "base/sanitize.h"

int field_key(LineEdit *e, Action a, int key)
{
    static const struct {
        Action a;
        LineEditOp op;
    } ops[] = {
        {ACT_LEFT, LE_LEFT},         {ACT_RIGHT, LE_RIGHT},           {ACT_HOME_LINE, LE_HOME},
        {ACT_END_LINE, LE_END},      {ACT_ERASE, LE_BACKSPACE},       {ACT_DELETE, LE_DELETE},
        {ACT_KILL_END, LE_KILL_END}, {ACT_KILL_START, LE_KILL_START}, {ACT_KILL_WORD, LE_KILL_WORD},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].a == a) return lineedit_do(e, ops[i].op) ? UI_REDRAW : UI_HANDLED;
    if (a != ACT_NONE || key < 0 || key >= UI_K_BASE || sanitize_is_control((uint32_t)key))
        return UI_NONE;
    return lineedit_insert(e, (uint32_t)key) == 0 ? UI_REDRAW : UI_HANDLED;
}
