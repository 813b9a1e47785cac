/* play_parse.c - the playground's statement grammar (a slice of Python's):
 *
 *   stmt    := [targets '='] exprs | postfix '[' subs ']' '=' expr | (blank) |
 *              '#' comment
 *   exprs   := expr | expr ',' [expr (',' expr)* [',']]          (a bare tuple)
 *   targets := NAME | NAME ',' [NAME (',' NAME)* [',']]     (unpacking: a, b = ...)
 *   expr    := sum [('==' | '!=' | '<' | '<=' | '>' | '>=') sum]   (no chains)
 *   sum     := term (('+' | '-') term)*
 *   term    := factor (('*' | '/' | '//' | '%' | '@') factor)*
 *   factor  := '-' factor | power
 *   power   := postfix ['**' factor]          (Python's: -2 ** 2 is -4, 2 ** -1 is 0.5)
 *   postfix := atom ( '.' NAME | '(' args ')' | '[' subs ']' )*
 *   atom    := NAME | INT | FLOAT | STRING | None | True | False | '...'
 *            | '(' [expr (',' expr)* [',']] ')' | '[' [expr (',' expr)* [',']] ']'
 *   FLOAT   := digits '.' [digits] [exponent] | digits exponent   (Python's: 0.5, 1e-9, 2.)
 *   STRING  := a '...' or "..." without escapes (float('-inf'))
 *   args    := [arg (',' arg)* [',']]        arg := [NAME '='] expr
 *   subs    := sub (',' sub)* [',']          sub := [expr] ':' [expr] [':' [expr]] | expr
 *
 * Recursive descent over a hand lexer; errors carry the column of the
 * offending character so the REPL can put a caret under it.
 */
#include "engine/play.h"

#include "base/errbuf.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { TK_END, TK_NAME, TK_INT, TK_FLOAT, TK_STR, TK_PUNCT, TK_ELLIPSIS } TokKind;
/* The two-character operators, each one punct character of its own: */
#define PUNCT_FLOORDIV 'f' /* '//' */
#define PUNCT_EQ 'E'       /* '==' */
#define PUNCT_NE 'N'       /* '!=' */
#define PUNCT_LE 'L'       /* '<=' */
#define PUNCT_GE 'G'       /* '>=' */
#define PUNCT_POW 'P'      /* '**' */

typedef struct Parser {
    const char *s;
    int pos;    /* next character */
    TokKind tk; /* current token */
    int tcol;   /* its column */
    int tlen;
    char punct;  /* TK_PUNCT */
    long ival;   /* TK_INT */
    double fval; /* TK_FLOAT */
    char name[PLAY_NAME_MAX];
    PlayAst *ast;
    char *err;
    size_t errlen;
    int ecol;
    int failed;
} Parser;

static int fail(Parser *p, int col, const char *msg)
{
    if (!p->failed) {
        err_set(p->err, p->errlen, "%s", msg);
        p->ecol = col;
        p->failed = 1;
    }
    return -1;
}

/* An INT or a FLOAT at p->pos, as Python reads them (no '_' separators). */
static void lex_number(Parser *p)
{
    const char *s = p->s;
    int k = p->pos, is_float = 0;
    while (isdigit((unsigned char)s[k]))
        k++;
    if (s[k] == '.' && s[k + 1] != '.') { /* not 1... */
        is_float = 1;
        for (k++; isdigit((unsigned char)s[k]);)
            k++;
    }
    if ((s[k] == 'e' || s[k] == 'E') &&
        (isdigit((unsigned char)s[k + 1]) ||
         ((s[k + 1] == '+' || s[k + 1] == '-') && isdigit((unsigned char)s[k + 2])))) {
        is_float = 1;
        for (k += 2; isdigit((unsigned char)s[k]);)
            k++;
    }
    char *end;
    errno = 0;
    if (is_float) {
        p->fval = strtod(s + p->pos, &end);
        p->tk = TK_FLOAT;
    } else {
        p->ival = strtol(s + p->pos, &end, 10);
        if (errno == ERANGE) fail(p, p->tcol, "integer too large");
        p->tk = TK_INT;
    }
    p->pos = (int)(end - s);
    if (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_' || s[p->pos] == '.')
        fail(p, p->pos, "invalid decimal literal");
}

static void next(Parser *p)
{
    const char *s = p->s;
    while (s[p->pos] == ' ' || s[p->pos] == '\t')
        p->pos++;
    p->tcol = p->pos;
    char c = s[p->pos];
    if (!c || c == '#') {
        p->tk = TK_END;
        p->tlen = 0;
        return;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        int k = 0;
        while (isalnum((unsigned char)s[p->pos]) || s[p->pos] == '_') {
            if (k < PLAY_NAME_MAX - 1)
                p->name[k++] = s[p->pos];
            else if (!p->failed)
                fail(p, p->tcol, "name too long");
            p->pos++;
        }
        p->name[k] = 0;
        p->tk = TK_NAME;
    } else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)s[p->pos + 1]))) {
        lex_number(p);
    } else if (c == '\'' || c == '"') {
        const char *end = strchr(s + p->pos + 1, c);
        if (!end) {
            fail(p, p->pos, "unterminated string literal");
            p->tk = TK_END;
        } else {
            int len = (int)(end - s) - p->pos - 1;
            if (len >= PLAY_NAME_MAX) fail(p, p->pos, "string too long");
            snprintf(p->name, sizeof p->name, "%.*s", len, s + p->pos + 1);
            p->pos = (int)(end - s) + 1;
            p->tk = TK_STR;
        }
    } else if (c == '.' && s[p->pos + 1] == '.' && s[p->pos + 2] == '.') {
        p->pos += 3;
        p->tk = TK_ELLIPSIS;
    } else if (strchr("/=!<>", c) && (s[p->pos + 1] == '=' || (c == '/' && s[p->pos + 1] == '/'))) {
        p->tk = TK_PUNCT;
        p->punct = c == '/'   ? PUNCT_FLOORDIV
                   : c == '=' ? PUNCT_EQ
                   : c == '!' ? PUNCT_NE
                   : c == '<' ? PUNCT_LE
                              : PUNCT_GE;
        p->pos += 2;
    } else if (c == '*' && s[p->pos + 1] == '*') {
        p->tk = TK_PUNCT;
        p->punct = PUNCT_POW;
        p->pos += 2;
    } else if (strchr("()[],.=:-+*%/@<>", c)) {
        p->pos++;
        p->tk = TK_PUNCT;
        p->punct = c;
    } else {
        fail(p, p->pos, "invalid character");
        p->tk = TK_END;
    }
    p->tlen = p->pos - p->tcol;
}

static int is_punct(const Parser *p, char c)
{
    return p->tk == TK_PUNCT && p->punct == c;
}

static int node_new(Parser *p, PlayNodeKind kind, int col)
{
    if (p->ast->n >= PLAY_MAX_NODES) return fail(p, col, "statement too complex");
    int i = p->ast->n++;
    PlayNode *n = &p->ast->nodes[i];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->col = col;
    return i;
}

static int add_kid(Parser *p, int parent, int kid)
{
    PlayNode *n = &p->ast->nodes[parent];
    if (kid < -1) return -1;
    if (n->nkids >= PLAY_MAX_KIDS) return fail(p, p->tcol, "too many items (at most 16)");
    n->kids[n->nkids++] = kid;
    return 0;
}

static int expect(Parser *p, char c)
{
    if (!is_punct(p, c)) {
        char msg[40];
        err_set(msg, sizeof msg, p->tk == TK_END ? "'%c' expected at the end" : "'%c' expected", c);
        return fail(p, p->tcol, msg);
    }
    next(p);
    return 0;
}

static int parse_expr(Parser *p);

/* items of ( ... ) or [ ... ] after the opening bracket; closes with `close`. */
static int parse_items(Parser *p, int node, char close, int *trailing_comma)
{
    *trailing_comma = 0;
    while (!is_punct(p, close)) {
        int e = parse_expr(p);
        if (e < 0 || add_kid(p, node, e) < 0) return -1;
        if (is_punct(p, ',')) {
            next(p);
            *trailing_comma = 1;
        } else {
            *trailing_comma = 0;
            break;
        }
    }
    return expect(p, close);
}

static int parse_atom(Parser *p)
{
    int col = p->tcol, n, comma;
    switch (p->tk) {
    case TK_NAME:
        if (!strcmp(p->name, "None"))
            n = node_new(p, PN_NONE, col);
        else if (!strcmp(p->name, "True"))
            n = node_new(p, PN_TRUE, col);
        else if (!strcmp(p->name, "False"))
            n = node_new(p, PN_FALSE, col);
        else {
            n = node_new(p, PN_NAME, col);
            if (n >= 0) strcpy(p->ast->nodes[n].name, p->name);
        }
        next(p);
        return n;
    case TK_INT:
        n = node_new(p, PN_INT, col);
        if (n >= 0) p->ast->nodes[n].ival = p->ival;
        next(p);
        return n;
    case TK_FLOAT:
        n = node_new(p, PN_FLOAT, col);
        if (n >= 0) p->ast->nodes[n].fval = p->fval;
        next(p);
        return n;
    case TK_STR:
        n = node_new(p, PN_STR, col);
        if (n >= 0) strcpy(p->ast->nodes[n].name, p->name);
        next(p);
        return n;
    case TK_ELLIPSIS:
        next(p);
        return node_new(p, PN_ELLIPSIS, col);
    case TK_PUNCT:
        if (p->punct == '(') {
            next(p);
            n = node_new(p, PN_TUPLE, col);
            if (n < 0 || parse_items(p, n, ')', &comma) < 0) return -1;
            PlayNode *t = &p->ast->nodes[n];
            if (t->nkids == 1 && !comma) return t->kids[0]; /* (expr) */
            return n;
        }
        if (p->punct == '[') {
            next(p);
            n = node_new(p, PN_LIST, col);
            if (n < 0 || parse_items(p, n, ']', &comma) < 0) return -1;
            return n;
        }
        return fail(p, col, "invalid syntax");
    case TK_END:
    default:
        return fail(p, col, "an expression was expected");
    }
}

static int parse_args(Parser *p, int call)
{
    while (!is_punct(p, ')')) {
        char kw[PLAY_NAME_MAX] = "";
        if (p->tk == TK_NAME && p->s[p->pos] == '=' && p->s[p->pos + 1] != '=') {
            strcpy(kw, p->name);
            next(p);
            next(p); /* '=' */
        } else if (p->tk == TK_NAME) {
            /* look past spaces: `dim = 1` */
            int k = p->pos;
            while (p->s[k] == ' ')
                k++;
            if (p->s[k] == '=' && p->s[k + 1] != '=') {
                strcpy(kw, p->name);
                p->pos = k + 1;
                next(p);
            }
        }
        int e = parse_expr(p);
        if (e < 0) return -1;
        strcpy(p->ast->nodes[e].kw, kw);
        if (add_kid(p, call, e) < 0) return -1;
        if (!is_punct(p, ',')) break;
        next(p);
    }
    return expect(p, ')');
}

/* One subscript: an expression or a slice. */
static int parse_sub(Parser *p)
{
    int col = p->tcol, parts[3] = {-1, -1, -1}, k = 0;
    if (!is_punct(p, ':')) {
        parts[0] = parse_expr(p);
        if (parts[0] < 0) return -1;
        if (!is_punct(p, ':')) return parts[0];
    }
    int n = node_new(p, PN_SLICE, col);
    if (n < 0) return -1;
    while (is_punct(p, ':') && k < 2) {
        next(p);
        k++;
        if (!is_punct(p, ':') && !is_punct(p, ',') && !is_punct(p, ']')) {
            parts[k] = parse_expr(p);
            if (parts[k] < 0) return -1;
        }
    }
    for (int i = 0; i < 3; i++)
        if (add_kid(p, n, parts[i]) < 0 && parts[i] != -1) return -1;
    return n;
}

static int parse_postfix(Parser *p)
{
    int e = parse_atom(p);
    while (e >= 0) {
        int col = p->tcol, n;
        if (is_punct(p, '.')) {
            next(p);
            if (p->tk != TK_NAME) return fail(p, p->tcol, "a name was expected after '.'");
            n = node_new(p, PN_ATTR, col);
            if (n < 0 || add_kid(p, n, e) < 0) return -1;
            strcpy(p->ast->nodes[n].name, p->name);
            next(p);
        } else if (is_punct(p, '(')) {
            next(p);
            n = node_new(p, PN_CALL, col);
            if (n < 0 || add_kid(p, n, e) < 0 || parse_args(p, n) < 0) return -1;
        } else if (is_punct(p, '[')) {
            next(p);
            n = node_new(p, PN_INDEX, col);
            if (n < 0 || add_kid(p, n, e) < 0) return -1;
            if (is_punct(p, ']')) return fail(p, p->tcol, "an index was expected");
            while (!is_punct(p, ']')) {
                int s = parse_sub(p);
                if (s < 0 || add_kid(p, n, s) < 0) return -1;
                if (!is_punct(p, ',')) break;
                next(p);
            }
            if (expect(p, ']') < 0) return -1;
        } else
            break;
        e = n;
    }
    return e;
}

static int parse_factor(Parser *p);

/* postfix ['**' factor]: right-associative, tighter than a unary minus on
 * its left and looser than one on its right, as Python's power. */
static int parse_power(Parser *p)
{
    int e = parse_postfix(p);
    if (e < 0 || !is_punct(p, PUNCT_POW)) return e;
    int n = node_new(p, PN_BINOP, p->tcol);
    if (n < 0) return -1;
    strcpy(p->ast->nodes[n].name, "**");
    next(p);
    int r = parse_factor(p);
    if (r < 0 || add_kid(p, n, e) < 0 || add_kid(p, n, r) < 0) return -1;
    return n;
}

static int parse_factor(Parser *p)
{
    if (is_punct(p, '-')) {
        int col = p->tcol;
        next(p);
        int n = node_new(p, PN_NEG, col), e = parse_factor(p);
        if (n < 0 || e < 0 || add_kid(p, n, e) < 0) return -1;
        return n;
    }
    return parse_power(p);
}

/* The operator's spelling: "+", "//", "==". */
static const char *op_text(char punct)
{
    static const char two[][3] = {"//", "==", "!=", "<=", ">="};
    const char *k = strchr("fENLG", punct);
    return k && punct ? two[k - "fENLG"] : NULL;
}

/* The operator at the current token applied to left and the operand sub
 * parses after it: a PN_BINOP node named the operator ("+", "//", "<="),
 * or -1. */
static int binop(Parser *p, int left, int (*sub)(Parser *))
{
    int n = node_new(p, PN_BINOP, p->tcol);
    if (n < 0) return -1;
    const char *two = op_text(p->punct);
    if (two)
        strcpy(p->ast->nodes[n].name, two);
    else
        strcpy(p->ast->nodes[n].name, (char[]){p->punct, 0});
    next(p);
    int r = sub(p);
    if (r < 0 || add_kid(p, n, left) < 0 || add_kid(p, n, r) < 0) return -1;
    return n;
}

/* a left-associative chain of the binary operators in ops over operands
 * parsed by sub: PN_BINOP nodes, name the operator ("+", "//") */
static int parse_chain(Parser *p, const char *ops, int (*sub)(Parser *))
{
    int e = sub(p);
    while (e >= 0 && p->tk == TK_PUNCT && strchr(ops, p->punct))
        e = binop(p, e, sub);
    return e;
}

static int parse_term(Parser *p)
{
    return parse_chain(p, "*/f%@", parse_factor);
}

static int parse_sum(Parser *p)
{
    return parse_chain(p, "+-", parse_term);
}

static int reserved(const char *name)
{
    return !strcmp(name, "None") || !strcmp(name, "True") || !strcmp(name, "False") ||
           !strcmp(name, "torch");
}

/* `a, b, c =` at the start (the current token is the first NAME): the names
 * into ast->targets and the parser past the '=', 1; 0 (nothing consumed)
 * when the line does not start so. */
static int parse_targets(Parser *p, PlayAst *ast)
{
    const char *s = p->s;
    int k = p->pos, n = 0, col[PLAY_MAX_KIDS];
    char names[PLAY_MAX_KIDS][PLAY_NAME_MAX] = {{0}};
    snprintf(names[n], PLAY_NAME_MAX, "%s", p->name);
    col[n++] = p->tcol;
    for (;;) {
        while (s[k] == ' ' || s[k] == '\t')
            k++;
        if (s[k] != ',') break;
        k++;
        while (s[k] == ' ' || s[k] == '\t')
            k++;
        if (!isalpha((unsigned char)s[k]) && s[k] != '_') break; /* `a, =` */
        int start = k;
        while (isalnum((unsigned char)s[k]) || s[k] == '_')
            k++;
        if (k - start >= PLAY_NAME_MAX) return 0; /* the expression parser says "name too long" */
        if (n == PLAY_MAX_KIDS) return fail(p, start, "too many names to unpack into (at most 16)");
        snprintf(names[n], PLAY_NAME_MAX, "%.*s", k - start, s + start);
        col[n++] = start;
    }
    if (s[k] != '=' || s[k + 1] == '=') return 0;
    int comma = 0; /* `a, = x` unpacks one; `a = x` is a plain assignment */
    for (int j = k - 1; j >= p->pos && !comma; j--)
        comma = s[j] == ',';
    if (n == 1 && !comma) return 0;
    for (int i = 0; i < n; i++) {
        if (reserved(names[i])) return fail(p, col[i], "cannot assign to this name");
        memcpy(ast->targets[i], names[i], PLAY_NAME_MAX);
    }
    ast->ntargets = n;
    p->pos = k + 1;
    next(p);
    return 1;
}

/* One comparison at most: Python's chains (a < b < c) are not modelled. */
static int parse_expr(Parser *p)
{
    int e = parse_sum(p);
    if (e < 0 || p->tk != TK_PUNCT || !strchr("ENLG<>", p->punct)) return e;
    int n = binop(p, e, parse_sum);
    if (n < 0) return -1;
    if (p->tk == TK_PUNCT && strchr("ENLG<>", p->punct))
        return fail(p, p->tcol, "chained comparisons are not in the playground yet");
    return n;
}

int play_parse(const char *line, PlayAst *ast, char *err, size_t errlen, int *col)
{
    Parser p = {.s = line, .ast = ast, .err = err, .errlen = errlen, .ecol = -1};
    ast->n = 0;
    ast->root = -1;
    ast->target[0] = 0;
    ast->ntargets = 0;
    ast->store = -1;
    ast->empty = 0;
    *col = -1;
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        len--; /* trailing white space is not part of the statement */
    if (len > PLAY_LINE_MAX) {
        err_set(err, errlen, "statement too long (at most %d characters)", PLAY_LINE_MAX);
        *col = PLAY_LINE_MAX;
        return -1;
    }
    next(&p);
    if (p.tk == TK_END && !p.failed) {
        ast->empty = 1;
        return 0;
    }
    /* NAME ',' NAME ... '=' unpacks a tuple into names */
    if (p.tk == TK_NAME && parse_targets(&p, ast) > 0) {
        /* parse_targets moved past the '=' */
    } else if (p.tk == TK_NAME) { /* NAME '=' (but not '==') starts an assignment */
        int k = p.pos;
        while (line[k] == ' ' || line[k] == '\t')
            k++;
        if (line[k] == '=' && line[k + 1] != '=') {
            strcpy(ast->target, p.name);
            if (reserved(p.name)) fail(&p, p.tcol, "cannot assign to this name");
            p.pos = k + 1;
            next(&p);
        }
    }
    int start = p.tcol;
    if (!p.failed) ast->root = parse_expr(&p);
    if (!p.failed && ast->root >= 0 && is_punct(&p, ',')) { /* a bare tuple: `k, v = a, b` */
        int t = node_new(&p, PN_TUPLE, p.ast->nodes[ast->root].col);
        if (t >= 0 && add_kid(&p, t, ast->root) == 0) {
            ast->root = t;
            while (!p.failed && is_punct(&p, ',')) {
                next(&p);
                if (p.tk == TK_END) break; /* a trailing comma */
                int e = parse_expr(&p);
                if (e < 0 || add_kid(&p, t, e) < 0) break;
            }
        }
    }
    /* EXPR[subs] = EXPR: a subscript assignment writes into that view */
    if (!p.failed && !ast->target[0] && !ast->ntargets && is_punct(&p, '=') && line[p.pos] != '=') {
        if (ast->nodes[ast->root].kind != PN_INDEX) {
            fail(&p, start,
                 "cannot assign to expression here. Maybe you meant '==' instead of '='?");
        } else {
            ast->store = ast->root;
            next(&p);
            ast->root = parse_expr(&p);
        }
    }
    if (!p.failed && p.tk != TK_END) fail(&p, p.tcol, "invalid syntax");
    if (p.failed) {
        *col = p.ecol;
        return -1;
    }
    return 0;
}
