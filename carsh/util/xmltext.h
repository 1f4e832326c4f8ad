/* Text put into generated XML (batches) and Graphviz HTML-like labels. */
#ifndef CARSH_UTIL_XMLTEXT_H
#define CARSH_UTIL_XMLTEXT_H

#include "util/strbuf.h"

/* s with & < > " as entities. */
void sb_add_xml(struct strbuf *sb, const char *s);
/* s for inside <!-- -->, which may not hold "--" nor end in '-'. */
void sb_add_comment(struct strbuf *sb, const char *s);

#endif
