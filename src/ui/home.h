/* home.h - the home menu: the one screen that knows every other screen. */
#ifndef MHAVIZ_HOME_H
#define MHAVIZ_HOME_H
#include "ui/ui.h"

Screen *home_open(Ui *ui);

#endif
