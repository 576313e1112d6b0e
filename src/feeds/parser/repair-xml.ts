// Recovery for documents that are not well-formed XML (feedparser's "bozo" case): re-tokenise them
// with htmlparser2, which like a browser never gives up, and write a well-formed equivalent that the
// strict-ish feed library can read. What it repairs: unclosed or mis-nested tags (closed in order,
// stray end tags dropped), truncated documents, bare "&" and "<" in text, unquoted/duplicate
// attributes, control characters XML forbids, unterminated CDATA. Entity references are kept as
// written (the feed library decodes HTML named entities such as &nbsp; itself).
// htmlparser2 is already in the tree (sanitize-html uses it) and streams at >50 MB/s.
import { Parser } from 'htmlparser2';

const NAME = /^[A-Za-z_][\w.:-]*$/;
const ENTITY_REF = /&(?!#\d+;|#x[0-9a-fA-F]+;|[A-Za-z][\w.-]*;)/g;
// XML 1.0 Char production: no C0 controls except tab, LF, CR; no U+FFFE/U+FFFF; no lone surrogates.
const INVALID_CHARS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const escapeText = (t: string) => t.replace(INVALID_CHARS, '').replace(ENTITY_REF, '&amp;').replace(/</g, '&lt;');
const escapeAttr = (t: string) => escapeText(t).replace(/"/g, '&quot;');

export function repairXml(text: string): string {
  const out: string[] = [];
  // Names of the elements we actually wrote, so skipped (invalid) names never get a closing tag.
  const written: boolean[] = [];
  let inCdata = false;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const ok = NAME.test(name);
        written.push(ok);
        if (!ok) return;
        let tag = '<' + name;
        for (const [k, v] of Object.entries(attribs)) if (NAME.test(k)) tag += ` ${k}="${escapeAttr(v)}"`;
        out.push(tag + '>');
      },
      onclosetag(name) {
        if (written.pop()) out.push(`</${name}>`);
      },
      ontext(t) {
        out.push(inCdata ? t.replace(INVALID_CHARS, '').replace(/]]>/g, ']]]]><![CDATA[>') : escapeText(t));
      },
      oncdatastart() {
        inCdata = true;
        out.push('<![CDATA[');
      },
      oncdataend() {
        inCdata = false;
        out.push(']]>');
      },
    },
    { xmlMode: true, decodeEntities: false, recognizeSelfClosing: true },
  );
  parser.write(text);
  parser.end();
  if (inCdata) out.push(']]>');
  return out.join('');
}
