/*
 * xml.h - the one way perfgate puts arbitrary names into XML 1.0 (SVG flame
 * graphs, JUnit reports): first pg_xml_clean() makes the bytes legal XML
 * characters, then pg_xml_escape() writes them as text or attribute content.
 */
#ifndef PG_COMMON_XML_H
#define PG_COMMON_XML_H

#include <stddef.h>

#include "common/buf.h"

/**
 * Append @len bytes of @s to @out with what XML 1.0 cannot carry replaced by
 * U+FFFD: every byte that does not start well-formed UTF-8, every C0 control
 * other than TAB, LF and CR, and U+FFFE / U+FFFF (XML 1.0 section 2.2, Char).
 */
void pg_xml_clean(struct pg_buf *out, const char *s, size_t len);

/**
 * Append clean UTF-8 @s (@len bytes) escaped for element text and attribute
 * values alike: & < > " ' as entities (&#39; for the apostrophe, which HTML
 * also knows), TAB, LF and CR as character references so attribute values
 * keep them. No HTML-only entities.
 */
void pg_xml_escape(struct pg_buf *out, const char *s, size_t len);

/** pg_xml_clean() then pg_xml_escape() of NUL-terminated @s. */
void pg_xml_put(struct pg_buf *out, const char *s);

#endif
