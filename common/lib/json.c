/* A small JSON line builder (pure). Bytes >= 0x80 and controls are \u00XX. */
#include <stdio.h>
#include <string.h>
#include "suite.h"

size_t json_escape(const char *s, size_t slen, char *dst, size_t n)
{
	size_t o = 0;
	static const char hex[] = "0123456789abcdef";
	for (size_t i = 0; i < slen; i++) {
		unsigned char ch = (unsigned char)s[i];
		char tmp[8];
		size_t k = 0;
		if (ch == '"' || ch == '\\') {
			tmp[k++] = '\\';
			tmp[k++] = (char)ch;
		} else if (ch == '\n') {
			tmp[k++] = '\\', tmp[k++] = 'n';
		} else if (ch == '\t') {
			tmp[k++] = '\\', tmp[k++] = 't';
		} else if (ch < 0x20 || ch >= 0x7f) {
			memcpy(tmp, "\\u00", 4);
			k = 4;
			tmp[k++] = hex[ch >> 4];
			tmp[k++] = hex[ch & 15];
		} else {
			tmp[k++] = (char)ch;
		}
		if (o + k + 1 > n)
			break;
		memcpy(dst + o, tmp, k);
		o += k;
	}
	if (n)
		dst[o] = 0;
	return o;
}

static void put(struct jb *j, const char *s, size_t len)
{
	if (j->len + len + 2 > sizeof j->buf) {
		j->overflow = 1;
		return;
	}
	memcpy(j->buf + j->len, s, len);
	j->len += len;
	j->buf[j->len] = 0;
}

static void puts_(struct jb *j, const char *s) { put(j, s, strlen(s)); }

void jb_begin(struct jb *j)
{
	j->len = 0;
	j->overflow = 0;
	j->depth = 0;
	j->first[0] = 1;
	puts_(j, "{");
}

void jb_end(struct jb *j) { puts_(j, "}"); }

void jb_key(struct jb *j, const char *key)
{
	if (!j->first[j->depth])
		puts_(j, ",");
	j->first[j->depth] = 0;
	if (key) {
		char esc[256];
		size_t n = json_escape(key, strlen(key), esc, sizeof esc);
		puts_(j, "\"");
		put(j, esc, n);
		puts_(j, "\":");
	}
}

static void open_(struct jb *j, const char *key, const char *br)
{
	jb_key(j, key);
	puts_(j, br);
	if (j->depth < 15)
		j->depth++;
	j->first[j->depth] = 1;
}

void jb_obj(struct jb *j, const char *key) { open_(j, key, "{"); }
void jb_arr(struct jb *j, const char *key) { open_(j, key, "["); }
void jb_close_obj(struct jb *j) { j->depth--; puts_(j, "}"); }
void jb_close_arr(struct jb *j) { j->depth--; puts_(j, "]"); }

void jb_strn(struct jb *j, const char *key, const char *val, size_t len)
{
	static char esc[6 * 8192 + 1];
	if (len > 8192)
		len = 8192;
	jb_key(j, key);
	size_t n = json_escape(val, len, esc, sizeof esc);
	puts_(j, "\"");
	put(j, esc, n);
	puts_(j, "\"");
}

void jb_str(struct jb *j, const char *key, const char *val)
{
	if (!val) {
		jb_null(j, key);
		return;
	}
	jb_strn(j, key, val, strlen(val));
}

void jb_int(struct jb *j, const char *key, long v)
{
	char b[32];
	jb_key(j, key);
	snprintf(b, sizeof b, "%ld", v);
	puts_(j, b);
}

void jb_bool(struct jb *j, const char *key, int v)
{
	jb_key(j, key);
	puts_(j, v ? "true" : "false");
}

void jb_null(struct jb *j, const char *key)
{
	jb_key(j, key);
	puts_(j, "null");
}
