#include "model/xml.h"

#include <errno.h>
#include <stdbool.h>
#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/alloc.h"
#include "util/path.h"
#include "util/strbuf.h"

/* No network, no entity substitution, no DTD loading; libxml2 must not print on its own. */
#define XML_OPTIONS                                                                      \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA | \
	 XML_PARSE_BIG_LINES)

static char *read_whole(const char *path, size_t *len, struct cs_err *e)
{
	struct strbuf sb = STRBUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		err_errno(e, "%s", path);
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (sb.len + n > XML_MAX_BYTES) {
			err_set(e, "%s: larger than %u bytes; refusing to read it", path,
			        XML_MAX_BYTES);
			goto fail;
		}
		sb_add(&sb, chunk, n);
	}
	if (ferror(f)) {
		err_errno(e, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	*len = sb.len;
	return sb_detach(&sb);
fail:
	fclose(f);
	sb_free(&sb);
	return NULL;
}

bool file_is_stream(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* A pipe, a FIFO or a terminal can be read only once, yet a command reads its file more
 * than once (the root element, then the file as its kind): the text read from one is kept
 * until the next command starts (file_streams_forget), never longer, as the next command may
 * find other text there (a FIFO's next writer). */
struct stream_text {
	char *path;
	char *text;
	size_t len;
	bool kept; /* survives the next forget: read by the front-end for the next command */
	struct stream_text *next;
};

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream_text *streams;

static struct stream_text *stream_find(const char *path)
{
	for (struct stream_text *st = streams; st; st = st->next)
		if (strcmp(st->path, path) == 0)
			return st;
	return NULL;
}

/* Under the lock, held while reading: two readers of one pipe must not split its text. */
static struct stream_text *stream_read(const char *path, struct cs_err *e)
{
	struct stream_text *st = stream_find(path);
	size_t len;
	char *text;

	if (st)
		return st;
	text = read_whole(path, &len, e);
	if (!text)
		return NULL;
	st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	st->text = text;
	st->len = len;
	st->next = streams;
	streams = st;
	return st;
}

char *file_read_text(const char *path, size_t *len, struct cs_err *e)
{
	struct stream_text *st;
	size_t n;
	char *copy = NULL;

	if (!len)
		len = &n;
	if (!file_is_stream(path))
		return read_whole(path, len, e);
	pthread_mutex_lock(&streams_lock);
	st = stream_read(path, e);
	if (st) {
		copy = xmalloc(st->len + 1);
		memcpy(copy, st->text, st->len + 1);
		*len = st->len;
	}
	pthread_mutex_unlock(&streams_lock);
	return copy;
}

void file_stream_keep(const char *path)
{
	struct stream_text *st;

	pthread_mutex_lock(&streams_lock);
	if ((st = stream_find(path)) != NULL)
		st->kept = true;
	pthread_mutex_unlock(&streams_lock);
}

static void streams_drop(bool all)
{
	struct stream_text **pp = &streams;

	pthread_mutex_lock(&streams_lock);
	while (*pp) {
		struct stream_text *st = *pp;

		if (st->kept && !all) {
			st->kept = false;
			pp = &st->next;
			continue;
		}
		*pp = st->next;
		free(st->path);
		free(st->text);
		free(st);
	}
	pthread_mutex_unlock(&streams_lock);
}

void file_streams_forget(void)
{
	streams_drop(false);
}

void file_streams_clear(void)
{
	streams_drop(true);
}

static void trim_right(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* What the parser saw: the first error worth showing (later ones are often its consequences,
 * "Premature end of data" after a tag mismatch), or the reason the SAX hooks below stopped it,
 * which wins over any error the stop itself causes. */
struct parse_state {
	int line;
	char msg[1024];
	bool stopped;
	int depth;
	long elements;
	startElementNsSAX2Func start;
	endElementNsSAX2Func end;
};

static void keep_first_error(void *data, xmlErrorPtr xe)
{
	xmlParserCtxtPtr ctxt = data;
	struct parse_state *ps = ctxt->_private;

	if (!ps || ps->msg[0] || !xe || xe->level < XML_ERR_ERROR)
		return;
	/* Errors raised without the parser (the encoding converters) carry no line. */
	ps->line = xe->line > 0 ? xe->line : xmlSAX2GetLineNumber(ctxt);
	snprintf(ps->msg, sizeof(ps->msg), "%s", xe->message ? xe->message : "not well-formed");
	trim_right(ps->msg);
	/* One line: "Input is not proper UTF-8, indicate encoding !\nBytes: 0xFF ..." */
	for (char *nl = strchr(ps->msg, '\n'); nl; nl = strchr(nl, '\n'))
		*nl = ' ';
}

static void stop(xmlParserCtxtPtr ctxt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Stop the parser now with this message. */
static void stop(xmlParserCtxtPtr ctxt, const char *fmt, ...)
{
	struct parse_state *ps = ctxt->_private;
	va_list ap;

	if (ps->stopped)
		return;
	ps->stopped = true;
	ps->line = xmlSAX2GetLineNumber(ctxt);
	va_start(ap, fmt);
	vsnprintf(ps->msg, sizeof(ps->msg), fmt, ap);
	va_end(ap);
	xmlStopParser(ctxt);
}

/* Called at "<!DOCTYPE name ...", before the internal subset is read: no entity declaration
 * (billion laughs, external entities) is ever seen. */
static void refuse_dtd(void *ctx, const xmlChar *name, const xmlChar *external_id,
                       const xmlChar *system_id)
{
	(void)name;
	(void)external_id;
	(void)system_id;
	stop(ctx, "document type declarations (DTDs, entities) are not allowed in CarSh files; "
	          "remove the <!DOCTYPE ...>");
}

static void count_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                        const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                        int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct parse_state *ps = ctxt->_private;

	if (++ps->depth > XML_MAX_DEPTH)
		stop(ctxt, "elements nested more than %d deep; refusing to parse further",
		     XML_MAX_DEPTH);
	else if (++ps->elements > XML_MAX_ELEMENTS)
		stop(ctxt, "more than %ld elements; refusing to parse further", XML_MAX_ELEMENTS);
	else
		ps->start(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
		          nb_defaulted, attributes);
}

static void count_end(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                      const xmlChar *uri)
{
	xmlParserCtxtPtr ctxt = ctx;
	struct parse_state *ps = ctxt->_private;

	ps->depth--;
	ps->end(ctx, localname, prefix, uri);
}

/* Past the text that ends what starts at s[*i] ("-->" of a comment), counting lines. The end
 * of the text when it never comes (libxml2 reports that). */
static void skip_past(const char *s, size_t len, size_t *i, const char *end, int *line)
{
	const char *hit = memmem(s + *i, len - *i, end, strlen(end));
	size_t stop_at = hit ? (size_t)(hit - s) + strlen(end) : len;

	for (; *i < stop_at; (*i)++)
		*line += s[*i] == '\n';
}

static bool starts(const char *s, size_t len, size_t i, const char *with)
{
	size_t n = strlen(with);

	return len - i >= n && memcmp(s + i, with, n) == 0;
}

/* Refuse a tag with more than XML_MAX_ATTRS attributes, before libxml2 spends quadratic time
 * on it. In well-formed XML every attribute has one '=' outside quotes, and comments, CDATA
 * sections and processing instructions (which may hold '=' and quotes freely) are skipped; in
 * malformed XML the count may be off, and libxml2 reports the real error. Linear time. */
static int check_attribute_counts(const char *s, size_t len, const char *name, struct cs_err *e)
{
	int line = 1;
	size_t i = 0;

	while (i < len) {
		if (s[i] != '<') {
			line += s[i++] == '\n';
		} else if (starts(s, len, i, "<!--")) {
			skip_past(s, len, &i, "-->", &line);
		} else if (starts(s, len, i, "<![CDATA[")) {
			skip_past(s, len, &i, "]]>", &line);
		} else if (starts(s, len, i, "<?")) {
			skip_past(s, len, &i, "?>", &line);
		} else {
			int tag_line = line, attrs = 0;
			char quote = 0;

			for (i++; i < len && (quote || (s[i] != '>' && s[i] != '<')); i++) {
				line += s[i] == '\n';
				if (quote)
					quote = s[i] == quote ? 0 : quote;
				else if (s[i] == '"' || s[i] == '\'')
					quote = s[i];
				else if (s[i] == '=' && ++attrs > XML_MAX_ATTRS)
					return err_set(e,
					               "%s:%d: an element with more than %d "
					               "attributes; refusing to parse it",
					               name, tag_line, XML_MAX_ATTRS);
			}
		}
	}
	return 0;
}

int xml_load_memory(const char *text, size_t len, const char *name, struct xml_doc *out,
                    struct cs_err *e)
{
	struct parse_state ps = {0};
	xmlStructuredErrorFunc old_handler;
	void *old_context;
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc;

	memset(out, 0, sizeof(*out));
	if (len > XML_MAX_BYTES)
		return err_set(e, "%s: larger than %u bytes; refusing to parse it", name,
		               XML_MAX_BYTES);
	if (check_attribute_counts(text, len, name, e))
		return -1;
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return err_set(e, "%s: cannot create an XML parser (out of memory)", name);
	ctxt->_private = &ps;
	ctxt->sax->serror = keep_first_error;
	ctxt->sax->internalSubset = refuse_dtd;
	ctxt->sax->externalSubset = refuse_dtd;
	ps.start = ctxt->sax->startElementNs;
	ps.end = ctxt->sax->endElementNs;
	ctxt->sax->startElementNs = count_start;
	ctxt->sax->endElementNs = count_end;
	/* The encoding converters report without the parser context, to libxml2's
	 * thread-local handler, which would print "encoding error : ..." and "I/O error : ..."
	 * lines of its own on standard error: take them too. */
	old_handler = xmlStructuredError;
	old_context = xmlStructuredErrorContext;
	xmlSetStructuredErrorFunc(ctxt, keep_first_error);
	doc = xmlCtxtReadMemory(ctxt, text, (int)len, name, NULL, XML_OPTIONS);
	xmlSetStructuredErrorFunc(old_context, old_handler);
	if (!doc || ps.msg[0]) {
		if (doc)
			xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		if (ps.stopped)
			return err_set(e, "%s:%d: %s", name, ps.line, ps.msg);
		return err_set(e, "%s:%d: malformed XML: %s", name, ps.line,
		               ps.msg[0] ? ps.msg : "not well-formed");
	}
	xmlFreeParserCtxt(ctxt);
	/* Defence in depth: refuse_dtd should have stopped the parser already. */
	if (doc->intSubset || doc->extSubset) {
		xmlFreeDoc(doc);
		return err_set(e,
		               "%s: document type declarations (DTDs, entities) are not allowed "
		               "in CarSh files; remove the <!DOCTYPE ...>",
		               name);
	}
	if (!xmlDocGetRootElement(doc)) {
		xmlFreeDoc(doc);
		return err_set(e, "%s: empty XML document", name);
	}
	out->doc = doc;
	out->file = xstrdup(name);
	out->dir = path_dirname(name);
	return 0;
}

int xml_load(const char *path, struct xml_doc *out, struct cs_err *e)
{
	size_t len;
	char *text = file_read_text(path, &len, e);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	rc = xml_load_memory(text, len, path, out, e);
	free(text);
	/* "/dev/fd/63" names no directory of the user's: a piped file's relative paths are
	 * the current directory's, as a shell's are. */
	if (rc == 0 && file_is_stream(path)) {
		free(out->dir);
		out->dir = xstrdup(".");
	}
	return rc;
}

void xml_free(struct xml_doc *d)
{
	if (d->doc)
		xmlFreeDoc(d->doc);
	free(d->file);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

char *xml_root_name(const char *path, struct cs_err *e)
{
	struct xml_doc d;
	char *name;

	if (xml_load(path, &d, e))
		return NULL;
	name = xstrdup((const char *)xmlDocGetRootElement(d.doc)->name);
	xml_free(&d);
	return name;
}

int xml_read_file(const char *path, const char *root_name, xml_root_reader read, void *out,
                  struct cs_err *e)
{
	struct xml_doc d;
	struct xml_ctx x;
	xmlNodePtr root;
	int rc;

	if (xml_load(path, &d, e))
		return -1;
	x = (struct xml_ctx){d.file, d.dir, e};
	root = xmlDocGetRootElement(d.doc);
	if (!xml_is(root, root_name))
		rc = xml_err(&x, root, "expected a <%s> file", root_name);
	else
		rc = read(&x, root, out);
	xml_free(&d);
	return rc;
}

bool xml_is(xmlNodePtr n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

int xml_line(xmlNodePtr n)
{
	return n ? (int)xmlGetLineNo(n) : 0;
}

static xmlNodePtr skip_to_element(xmlNodePtr n)
{
	while (n && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

xmlNodePtr xml_child(xmlNodePtr parent)
{
	return parent ? skip_to_element(parent->children) : NULL;
}

xmlNodePtr xml_next(xmlNodePtr n)
{
	return n ? skip_to_element(n->next) : NULL;
}

char *xml_attr(xmlNodePtr n, const char *name)
{
	xmlChar *v = xmlGetNoNsProp(n, (const xmlChar *)name);
	char *s;

	if (!v)
		return NULL;
	s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

const char *xml_label(xmlNodePtr n, char *buf, size_t len)
{
	char *name = xml_attr(n, "name");

	if (name)
		snprintf(buf, len, "<%s name=\"%s\">", (const char *)n->name, name);
	else
		snprintf(buf, len, "<%s>", (const char *)n->name);
	free(name);
	return buf;
}

int xml_err(const struct xml_ctx *x, xmlNodePtr n, const char *fmt, ...)
{
	char msg[CS_ERR_MAX / 2];
	char label[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(x->e, "%s:%d: %s: %s", x->file, xml_line(n),
	               xml_label(n, label, sizeof(label)), msg);
}

int xml_attr_req(const struct xml_ctx *x, xmlNodePtr n, const char *name, char **out)
{
	*out = xml_attr(n, name);
	if (!*out)
		return xml_err(x, n, "missing attribute '%s'", name);
	return 0;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static void join_list(char *buf, size_t len, const char *const *list)
{
	size_t used = 0;

	buf[0] = '\0';
	for (; *list && used < len; list++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "", *list);
}

int xml_check_attrs(const struct xml_ctx *x, xmlNodePtr n, const char *const *allowed)
{
	char names[512];

	for (xmlAttrPtr a = n->properties; a; a = a->next) {
		if (in_list((const char *)a->name, allowed))
			continue;
		join_list(names, sizeof(names), allowed);
		if (!*allowed)
			return xml_err(x, n, "unknown attribute '%s' (this element takes none)",
			               (const char *)a->name);
		return xml_err(x, n, "unknown attribute '%s' (allowed: %s)", (const char *)a->name,
		               names);
	}
	return 0;
}

int xml_check_no_text(const struct xml_ctx *x, xmlNodePtr n)
{
	for (xmlNodePtr c = n->children; c; c = c->next) {
		if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE)
			continue;
		for (const xmlChar *p = c->content; p && *p; p++)
			if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
				return xml_err(x, n, "unexpected text inside this element");
	}
	return 0;
}

char *xml_text(xmlNodePtr n, bool trim)
{
	xmlChar *v = xmlNodeGetContent(n);
	const char *s = v ? (const char *)v : "";
	size_t len;
	char *out;

	if (trim)
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
	len = strlen(s);
	if (trim)
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
		               s[len - 1] == '\r'))
			len--;
	out = xstrndup(s, len);
	xmlFree(v);
	return out;
}

int xml_unknown_child(const struct xml_ctx *x, xmlNodePtr child, const char *const *allowed)
{
	char names[512];
	char parent[256];

	join_list(names, sizeof(names), allowed);
	xml_label(child->parent, parent, sizeof(parent));
	return err_set(x->e, "%s:%d: unknown element <%s> in %s (allowed: %s)", x->file,
	               xml_line(child), (const char *)child->name, parent, names);
}

int xml_read_param(const struct xml_ctx *x, xmlNodePtr n, struct params *ps)
{
	static const char *const attrs[] = {"name", "value", NULL};
	char *name = NULL, *value = NULL, *origin;
	int rc = -1;

	if (xml_check_attrs(x, n, attrs) || xml_check_no_text(x, n) ||
	    xml_attr_req(x, n, "name", &name) || xml_attr_req(x, n, "value", &value))
		goto out;
	if (!param_name_valid(name)) {
		xml_err(x, n,
		        "'%s' is not a valid parameter name (letters, digits and '_', not "
		        "starting with a digit)",
		        name);
		goto out;
	}
	if (params_get(ps, name)) {
		xml_err(x, n, "parameter '%s' is set twice (first at %s)", name,
		        params_get(ps, name)->origin);
		goto out;
	}
	origin = xasprintf("%s:%d", x->file, xml_line(n));
	params_set(ps, name, value, origin);
	free(origin);
	rc = 0;
out:
	free(name);
	free(value);
	return rc;
}

static char *trimmed(const char *s, size_t len)
{
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	return xstrndup(s, len);
}

int split_top_level(const char *s, char **parts, int max)
{
	int n = 0, depth = 0;
	const char *start = s;

	for (const char *p = s;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (*p && (*p != ',' || depth > 0))
			continue;
		if (n == max)
			goto fail;
		parts[n] = trimmed(start, (size_t)(p - start));
		if (!parts[n++][0])
			goto fail;
		if (!*p)
			return n;
		start = p + 1;
	}
fail:
	/* parts may be the caller's own array: leave nothing dangling in it. */
	while (n > 0) {
		free(parts[--n]);
		parts[n] = NULL;
	}
	return -1;
}
