// Turns the raw bytes of a feed into a JavaScript string, finding the charset the way browsers and
// feedparser do: byte-order mark, then the HTTP Content-Type charset (RFC 7303: it overrides the XML
// declaration), then the XML declaration / JSON default, then UTF-8 if the bytes are valid UTF-8,
// else windows-1252 (what "ISO-8859-1" means on the web). Legacy charsets (Windows-1251, KOI8-R,
// Shift_JIS, GB2312, Big5, EUC-KR …) are decoded by iconv-lite: it knows every charset label feeds
// use, unlike TextDecoder without full ICU, and never throws on bad bytes.
import iconv from 'iconv-lite';
import { gunzipSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';

export interface DecodedBody {
  text: string;
  /** The charset actually used, lower-case (e.g. "utf-8", "windows-1251"). */
  charset: string;
  /** Where the charset came from. */
  source: 'bom' | 'content-type' | 'xml-declaration' | 'sniffed' | 'fallback' | 'string';
  /** The declared charset could not be honoured (unknown label, or bytes invalid for it). */
  mismatch: boolean;
}

/** A gzip body that expands beyond this is refused (a "zip bomb" would otherwise fill memory). */
const MAX_GUNZIPPED_BYTES = 64 * 1024 * 1024;

/** Charset labels that mean "the web's Latin-1": decode as windows-1252 like every browser. */
const LATIN1_ALIASES = new Set([
  'iso-8859-1',
  'iso8859-1',
  'latin1',
  'latin-1',
  'l1',
  'us-ascii',
  'ascii',
  'cp819',
  'ibm819',
  'iso-ir-100',
  'csisolatin1',
]);

export function decodeFeedBody(body: Buffer | Uint8Array | string, contentType?: string | null): DecodedBody {
  // A Uint8Array (e.g. after a worker-thread transfer) has no Buffer methods: view it as a Buffer.
  const input =
    typeof body === 'string' || Buffer.isBuffer(body)
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const decoded = decodeBytes(input, contentType);
  return C1_CONTROLS.test(decoded.text) ? { ...decoded, text: demoronize(decoded.text) } : decoded;
}

/**
 * C1 control characters (U+0080–U+009F) never mean themselves in a feed: they are Windows-1252
 * smart quotes, dashes and the euro sign that went through a Latin-1 conversion ("don\u0092t").
 * Map them back to what the author typed, as feedparser does.
 */
const C1_CONTROLS = /[\u0080-\u009f]/;
function demoronize(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (c) => {
    const mapped = iconv.decode(Buffer.from([c.charCodeAt(0)]), 'windows-1252');
    return mapped === '\ufffd' ? '' : mapped;
  });
}

function decodeBytes(body: Buffer | string, contentType?: string | null): DecodedBody {
  if (typeof body === 'string') {
    return {
      text: body.charCodeAt(0) === 0xfeff ? body.slice(1) : body,
      charset: 'utf-16',
      source: 'string',
      mismatch: false,
    };
  }
  let bytes = body;
  // Some servers send gzip bytes without Content-Encoding (or the file was saved compressed).
  if (bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: MAX_GUNZIPPED_BYTES });
    } catch {
      // Not really gzip (or too big): leave the bytes as they are; the parser will say what it sees.
    }
  }

  const bom = detectBom(bytes);
  if (bom)
    return {
      text: iconv.decode(bytes.subarray(bom.length), bom.charset),
      charset: bom.charset,
      source: 'bom',
      mismatch: false,
    };

  const utf16 = sniffUtf16Or32WithoutBom(bytes);
  if (utf16) return { text: iconv.decode(bytes, utf16), charset: utf16, source: 'sniffed', mismatch: false };

  const fromHeader = charsetFromContentType(contentType);
  const fromDeclaration = charsetFromXmlDeclaration(bytes);
  // The header wins (RFC 7303), but a header claiming UTF-8 for bytes that are not UTF-8 is a common
  // server misconfiguration: then the document's own declaration (e.g. windows-1251) gets its turn.
  const candidates: Array<[string, DecodedBody['source']]> = [];
  if (fromHeader) candidates.push([fromHeader, 'content-type']);
  if (fromDeclaration) candidates.push([fromDeclaration, 'xml-declaration']);
  for (const [label, source] of candidates) {
    const charset = canonicalCharset(label);
    if (!charset || (charset === 'utf-8' && !isValidUtf8(bytes))) continue;
    // A document declaring UTF-16/32 without a BOM or UTF-16/32 byte pattern is really 8-bit: ignore the label.
    if (charset.startsWith('utf-16') || charset.startsWith('utf-32')) continue;
    return { text: iconv.decode(bytes, charset), charset, source, mismatch: source !== candidates[0]![1] };
  }
  if (candidates.length) return fallbackDecode(bytes, true);
  // No declaration at all: XML says UTF-8, so bytes that are not UTF-8 make the document ill-formed.
  return fallbackDecode(bytes, !isValidUtf8(bytes));
}

function fallbackDecode(bytes: Buffer, mismatch: boolean): DecodedBody {
  if (isValidUtf8(bytes))
    return { text: bytes.toString('utf8'), charset: 'utf-8', source: mismatch ? 'fallback' : 'sniffed', mismatch };
  const mixed = decodeMostlyUtf8(bytes);
  if (mixed !== null) return { text: mixed, charset: 'utf-8', source: 'fallback', mismatch };
  return { text: iconv.decode(bytes, 'windows-1252'), charset: 'windows-1252', source: 'fallback', mismatch };
}

/**
 * UTF-8 with a few Windows-1252 bytes pasted in (a smart quote from a word processor in an
 * otherwise UTF-8 feed) is common. Decoding all of it as Windows-1252 would garble every real
 * UTF-8 character ("Ã©" for "é"), so when valid multi-byte sequences outnumber the stray bytes,
 * each stray byte alone is read as Windows-1252. Returns null for text that is not mostly UTF-8.
 */
function decodeMostlyUtf8(bytes: Buffer): string | null {
  const parts: string[] = [];
  let start = 0,
    valid = 0,
    stray = 0;
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    let ok = len > 0 && i + len <= bytes.length;
    for (let k = 1; ok && k < len; k++) ok = (bytes[i + k]! & 0xc0) === 0x80;
    if (ok && len > 1 && isUtf8(bytes.subarray(i, i + len))) {
      valid++;
      i += len;
      continue;
    }
    stray++;
    parts.push(bytes.toString('utf8', start, i), iconv.decode(bytes.subarray(i, i + 1), 'windows-1252'));
    start = ++i;
  }
  if (valid < stray) return null;
  parts.push(bytes.toString('utf8', start));
  return parts.join('');
}

function detectBom(b: Buffer): { charset: string; length: number } | null {
  if (b.length >= 4 && b[0] === 0x00 && b[1] === 0x00 && b[2] === 0xfe && b[3] === 0xff)
    return { charset: 'utf-32be', length: 4 };
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xfe && b[2] === 0x00 && b[3] === 0x00)
    return { charset: 'utf-32le', length: 4 };
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  return null;
}

/** "<?" or "<" encoded in UTF-16/32 without a BOM (XML 1.0 appendix F). */
function sniffUtf16Or32WithoutBom(b: Buffer): string | null {
  if (b.length < 4) return null;
  if (b[0] === 0x00 && b[1] === 0x00 && b[2] === 0x00 && b[3] === 0x3c) return 'utf-32be';
  if (b[0] === 0x3c && b[1] === 0x00 && b[2] === 0x00 && b[3] === 0x00) return 'utf-32le';
  if (b[0] === 0x00 && b[1] === 0x3c && b[2] === 0x00 && b[3] === 0x3f) return 'utf-16be';
  if (b[0] === 0x3c && b[1] === 0x00 && b[2] === 0x3f && b[3] === 0x00) return 'utf-16le';
  return null;
}

export function charsetFromContentType(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const m = /;\s*charset\s*=\s*(?:"([^"]+)"|'([^']+)'|([^\s;]+))/i.exec(contentType);
  const value = (m?.[1] ?? m?.[2] ?? m?.[3])?.trim();
  return value ? value : null;
}

export function charsetFromXmlDeclaration(bytes: Buffer): string | null {
  const head = bytes.subarray(0, 1024).toString('latin1');
  const m = /^\s*<\?xml[^>]*?\bencoding\s*=\s*["']\s*([A-Za-z0-9._:+-]+)\s*["']/.exec(head);
  return m?.[1] ?? null;
}

/** Lower-case charset name iconv-lite can decode, or null for unknown labels. */
export function canonicalCharset(label: string): string | null {
  let name = label.trim().toLowerCase();
  if (LATIN1_ALIASES.has(name)) return 'windows-1252';
  if (name === 'utf8' || name === 'unicode-1-1-utf-8') name = 'utf-8';
  // WHATWG: GB2312/GBK labels use the GBK decoder, which is the GB18030 decoder (a superset).
  if (name === 'gb2312' || name === 'gbk' || name === 'x-gbk' || name === 'gb_2312-80' || name === 'chinese')
    return 'gb18030';
  if (name === 'x-sjis' || name === 'sjis' || name === 'ms_kanji' || name === 'shift-jis') return 'shift_jis';
  return iconv.encodingExists(name) ? name : null;
}

export function isValidUtf8(bytes: Buffer): boolean {
  // Buffer.isUtf8 is native (simdutf): orders of magnitude faster than decoding and checking for U+FFFD.
  return isUtf8(bytes);
}
