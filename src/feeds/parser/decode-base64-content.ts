// Atom 0.3 allowed mode="base64" on text constructs (title, content, summary …): the element holds
// base64 of the real text. feedsmith ignores the mode, so such elements are decoded in place before
// parsing (only documents that mention base64 pay for the scan).
import { escapeHtmlText } from '../../text/escape-html.ts';
const BASE64_ELEMENT = /<((?:[\w.-]+:)?[\w.-]+)(\s[^>]*?)?\smode\s*=\s*(["'])base64\3([^>]*)>([^<]*)<\/\1\s*>/g;

export function decodeBase64Content(xml: string): string {
  if (!xml.includes('base64')) return xml;
  return xml.replace(
    BASE64_ELEMENT,
    (whole, name: string, before: string | undefined, _q: string, after: string, data: string) => {
      const compact = data.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return whole;
      const text = Buffer.from(compact, 'base64').toString('utf8');
      const escaped = escapeHtmlText(text);
      return `<${name}${before ?? ''}${after}>${escaped}</${name}>`;
    },
  );
}
