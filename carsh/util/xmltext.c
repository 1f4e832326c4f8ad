#include "util/xmltext.h"

#include <string.h>

void sb_add_xml(struct strbuf *sb, const char *s)
{
	static const char special[] = "&<>\"";
	static const char *const entity[] = {"&amp;", "&lt;", "&gt;", "&quot;"};

	for (; *s; s++) {
		const char *hit = strchr(special, *s);

		if (hit)
			sb_adds(sb, entity[hit - special]);
		else
			sb_addc(sb, *s);
	}
}

void sb_add_comment(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		sb_addc(sb, *s);
		if (*s == '-' && (s[1] == '-' || !s[1]))
			sb_addc(sb, ' ');
	}
}
