/* Expected outcomes: the host's prediction of every case, and the verdict
 * of one observed case against it (pure: no syscalls).
 *
 * The host (harness/suite/expect.py) writes the file from the rule model before
 * the boot; the initramfs ships it as /etc/sticky/expect.txt:
 *
 *   sticky-expect 1
 *   flavor <name>
 *   settings <label> <label> ...
 *   xfail <tag> <text ...>                    (zero or more)
 *   log <probe> <n> ...                       (the log probes, see kmsg.c)
 *   cases <n>
 *   <case id> <token> <token> ...             (n lines, one token per setting)
 *
 * A token is <result>,<atime>,<control>[,<tags>]: result "ok" or an errno
 * name, atime 1, 0 or - (not predicted), control "ok", an errno name or -
 * (no control run), and tags, the xfail tags of the porting artifacts
 * that shaped the prediction (the case is an expected outcome of its
 * flavor, reported XFAIL). A token "?" says the model has no prediction:
 * the case fails, as does a case the file does not hold. "=" repeats the
 * token of the setting before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

static char *next_line(char **p)
{
	char *s = *p, *e;

	if (!*s)
		return NULL;
	e = strchr(s, '\n');
	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/* splits s at blanks in place; returns the number of words (at most max) */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
	}
	return n;
}

const char *const log_want_names[N_LOG_WANT] = { "single", "burst", "both", "release",
						  "suppressed" };

/* "log single 1 burst 9 ...": the messages each log probe gets, and N of the
 * release's report; a probe not named is not predicted */
static int parse_log(struct expect_set *e, char *s, char *why, size_t n)
{
	char *w[2 * N_LOG_WANT];
	int nw = split_words(s, w, 2 * N_LOG_WANT);

	if (nw < 2 || nw > 2 * N_LOG_WANT || nw % 2) {
		snprintf(why, n, "log: <probe> <count> pairs");
		return -1;
	}
	for (int i = 0; i < nw; i += 2) {
		char *end;
		long c = strtol(w[i + 1], &end, 10);
		int k = 0;

		while (k < N_LOG_WANT && strcmp(w[i], log_want_names[k]))
			k++;
		if (k == N_LOG_WANT || *end || end == w[i + 1] || c < 0 || c > 1000) {
			snprintf(why, n, "log: %.24s %.24s is no probe and count", w[i], w[i + 1]);
			return -1;
		}
		e->log[k] = (int)c;
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	return strcmp(((const struct expect_row *)a)->id, ((const struct expect_row *)b)->id);
}

int expect_parse(struct expect_set *e, char *text, struct expect_row *rows, int max_rows,
		 char *why, size_t n)
{
	char *p = text, *line, *w[EXPECT_MAX_SETTINGS + 2];
	int lineno = 0, want = -1, nw;

	memset(e, 0, sizeof(*e));
	for (int k = 0; k < N_LOG_WANT; k++)
		e->log[k] = -1;
	e->rows = rows;
	while ((line = next_line(&p))) {
		lineno++;
		if (!*line || *line == '#')
			continue;
		if (want < 0) {
			/* header */
			int ready = e->version && e->flavor[0] && e->nsettings;

			if (!strncmp(line, "sticky-expect ", 14)) {
				if (strcmp(line + 14, "1")) {
					snprintf(why, n, "line %d: format %s, this suite reads 1", lineno,
						 line + 14);
					return -1;
				}
				e->version = 1;
			} else if (!e->version) {
				snprintf(why, n, "line %d: not a sticky-expect file", lineno);
				return -1;
			} else if (!ready && (!strncmp(line, "xfail ", 6) || !strncmp(line, "cases ", 6) ||
					      !strncmp(line, "log ", 4))) {
				snprintf(why, n, "line %d: %.40s before flavor and settings", lineno, line);
				return -1;
			} else if (!strncmp(line, "flavor ", 7)) {
				snprintf(e->flavor, sizeof(e->flavor), "%s", line + 7);
			} else if (!strncmp(line, "settings ", 9)) {
				nw = split_words(line + 9, w, EXPECT_MAX_SETTINGS);
				if (nw < 1 || nw > EXPECT_MAX_SETTINGS) {
					snprintf(why, n, "line %d: 1 to %d settings", lineno,
						 EXPECT_MAX_SETTINGS);
					return -1;
				}
				for (int i = 0; i < nw; i++)
					e->settings[i] = w[i];
				e->nsettings = nw;
			} else if (!strncmp(line, "xfail ", 6)) {
				char *t = line + 6, *sp = strchr(t, ' ');

				if (e->ntags == EXPECT_MAX_TAGS || !sp || sp != t + 1) {
					snprintf(why, n, "line %d: xfail <one-letter tag> <text>", lineno);
					return -1;
				}
				e->tag[e->ntags] = *t;
				e->tag_text[e->ntags++] = sp + 1;
			} else if (!strncmp(line, "log ", 4)) {
				char sub[96];

				if (parse_log(e, line + 4, sub, sizeof(sub))) {
					snprintf(why, n, "line %d: %s", lineno, sub);
					return -1;
				}
			} else if (!strncmp(line, "cases ", 6)) {
				char *end;
				long c = strtol(line + 6, &end, 10);

				if (*end || c < 0 || c > max_rows) {
					snprintf(why, n, "line %d: %s cases (at most %d)", lineno, line + 6,
						 max_rows);
					return -1;
				}
				want = (int)c;
			} else {
				snprintf(why, n, "line %d: unknown header %.40s", lineno, line);
				return -1;
			}
			continue;
		}
		nw = split_words(line, w, EXPECT_MAX_SETTINGS + 1);
		if (nw != e->nsettings + 1) {
			snprintf(why, n, "line %d: %d tokens for %d settings", lineno, nw - 1,
				 e->nsettings);
			return -1;
		}
		if (e->nrows == want) {
			snprintf(why, n, "line %d: more than the %d cases announced", lineno, want);
			return -1;
		}
		rows[e->nrows].id = w[0];
		for (int i = 0; i < e->nsettings; i++) {
			int same = !strcmp(w[i + 1], "=");

			if (same && !i) {
				snprintf(why, n, "line %d: \"=\" as the first token", lineno);
				return -1;
			}
			rows[e->nrows].tok[i] = same ? rows[e->nrows].tok[i - 1] : w[i + 1];
		}
		e->nrows++;
	}
	if (!e->version || !e->flavor[0] || !e->nsettings || want < 0) {
		snprintf(why, n, "incomplete header (sticky-expect, flavor, settings, cases)");
		return -1;
	}
	if (e->nrows != want) {
		snprintf(why, n, "%d case lines, the header announces %d (cut?)", e->nrows, want);
		return -1;
	}
	qsort(rows, (size_t)e->nrows, sizeof(rows[0]), cmp_row);
	for (int i = 1; i < e->nrows; i++)
		if (!strcmp(rows[i - 1].id, rows[i].id)) {
			snprintf(why, n, "case %s appears twice", rows[i].id);
			return -1;
		}
	return 0;
}

int expect_setting(const struct expect_set *e, const char *label)
{
	for (int i = 0; i < e->nsettings; i++)
		if (!strcmp(e->settings[i], label))
			return i;
	return -1;
}

const struct expect_row *expect_find(const struct expect_set *e, const char *id)
{
	struct expect_row key = { .id = id };

	if (!e->nrows)
		return NULL;
	return bsearch(&key, e->rows, (size_t)e->nrows, sizeof(key), cmp_row);
}

static int word_ok(const char *s, size_t len, int dash_ok)
{
	if (!len || len >= EXPECT_WORD)
		return 0;
	if (len == 1 && *s == '-')
		return dash_ok;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'z')))
			return 0;
	return 1;
}

int expect_token(const char *s, struct expect_tok *t)
{
	const char *f[4];
	size_t len[4];
	int nf = 0;
	const char *p = s;

	memset(t, 0, sizeof(*t));
	if (!strcmp(s, "?")) {
		t->none = 1;
		return 0;
	}
	for (;;) {
		const char *c = strchr(p, ',');

		if (nf == 4)
			return -1;
		f[nf] = p;
		len[nf] = c ? (size_t)(c - p) : strlen(p);
		nf++;
		if (!c)
			break;
		p = c + 1;
	}
	if (nf < 3 || !word_ok(f[0], len[0], 0) || !word_ok(f[2], len[2], 1) || len[1] != 1)
		return -1;
	memcpy(t->res, f[0], len[0]);
	memcpy(t->ctl, f[2], len[2]);
	if (f[1][0] == '1' || f[1][0] == '0')
		t->atime = f[1][0] - '0';
	else if (f[1][0] == '-')
		t->atime = -1;
	else
		return -1;
	if (nf == 4) {
		if (!len[3] || len[3] > EXPECT_MAX_TAGS || !word_ok(f[3], len[3], 0))
			return -1;
		memcpy(t->tags, f[3], len[3]);
	}
	return 0;
}

/* "<result> a<atime> c:<control>", as results/expected writes an outcome */
int expect_outcome_str(char *buf, size_t n, const char *res, int atime, const char *ctl)
{
	return snprintf(buf, n, "%s a%s c:%s", res, atime < 0 ? "-" : atime ? "1" : "0",
			ctl ? ctl : "-");
}

static int tag_text(const struct expect_set *e, char tag, const char **text)
{
	for (int i = 0; i < e->ntags; i++)
		if (e->tag[i] == tag) {
			*text = e->tag_text[i];
			return 0;
		}
	return -1;
}

int expect_judge(const struct expect_set *e, const char *setting, const char *id,
		 const struct observed *o, char *diag, size_t n)
{
	const struct expect_row *r;
	struct expect_tok t;
	char want[96], got[96];
	int si = expect_setting(e, setting);

	if (!e->nsettings) {
		snprintf(diag, n, "no expectation for %s: no usable expectation file", id);
		return V_FAIL;
	}
	if (si < 0) {
		snprintf(diag, n, "no expectation for %s: setting %s not in the file", id, setting);
		return V_FAIL;
	}
	r = expect_find(e, id);
	if (!r) {
		snprintf(diag, n, "no expectation for %s", id);
		return V_FAIL;
	}
	if (expect_token(r->tok[si], &t)) {
		snprintf(diag, n, "no expectation for %s: token %.40s not understood", id, r->tok[si]);
		return V_FAIL;
	}
	if (t.none) {
		snprintf(diag, n, "no expectation for %s: the model has no prediction", id);
		return V_FAIL;
	}
	expect_outcome_str(want, sizeof(want), t.res, t.atime, strcmp(t.ctl, "-") ? t.ctl : NULL);
	expect_outcome_str(got, sizeof(got), o->res, o->atime, o->ctl);
	/* an atime that one side does not know (the link is gone) matches */
	if (strcmp(t.res, o->res) || strcmp(t.ctl, o->ctl ? o->ctl : "-") ||
	    (t.atime >= 0 && o->atime >= 0 && t.atime != o->atime)) {
		snprintf(diag, n, "%s expected %s got %s%s", id, want, got,
			 t.tags[0] ? " (an expected porting artifact did not show)" : "");
		return V_FAIL;
	}
	if (t.tags[0]) {
		size_t len = (size_t)snprintf(diag, n, "porting artifact");
		for (const char *c = t.tags; *c && len < n; c++) {
			const char *text;

			if (tag_text(e, *c, &text)) {
				snprintf(diag, n, "no expectation for %s: xfail tag %c undeclared", id, *c);
				return V_FAIL;
			}
			len += (size_t)snprintf(diag + len, n - len, "%s %s", c == t.tags ? ":" : ";", text);
		}
		return V_XFAIL;
	}
	diag[0] = '\0';
	return V_PASS;
}
