/* ttyfloor.c - the floor for `make bench`: the least an ncurses program can
 * do (initscr, one line, getch).  mhaviz's first frame is measured against
 * this one, side by side in the same run, so the ratio holds on a busy
 * machine.  Built by tests/bench.sh, not part of mhaviz. */
#include <curses.h>

int main(void)
{
    initscr();
    mvaddstr(0, 0, "minimal ncurses: one line");
    refresh();
    getch();
    endwin();
    return 0;
}
