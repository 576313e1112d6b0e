// Feed dates in every shape seen in the wild -> Unix seconds, or null when unparseable.
// Handles RFC 822/1123 (with or without weekday/seconds, 2-digit years, named zones like EST/PDT,
// military letters), RFC 3339 / ISO 8601 / W3CDTF (date only, no seconds, fractional seconds,
// "+0200" offsets, space instead of "T", compact "20040102T030405Z"), and falls back to Date.parse.
// Written by hand because no maintained npm library covers feed-specific breakage (feedparser's
// _parse_date family is the reference) and a generic one (dayjs/luxon) would need all of it anyway.

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
  // Localised feeds (generators that format dates with the site's locale): German, French, Spanish, Italian, Dutch.
  mär: 3,
  mrz: 3,
  mai: 5,
  okt: 10,
  dez: 12,
  januar: 1,
  februar: 2,
  märz: 3,
  juni: 6,
  juli: 7,
  oktober: 10,
  dezember: 12,
  janv: 1,
  févr: 2,
  fév: 2,
  mars: 3,
  avr: 4,
  juin: 6,
  juil: 7,
  août: 8,
  aoû: 8,
  déc: 12,
  ene: 1,
  abr: 4,
  ago: 8,
  dic: 12,
  gen: 1,
  mag: 5,
  giu: 6,
  lug: 7,
  set: 9,
  ott: 10,
  mei: 5,
};

/** Offsets in minutes for zone names feeds use. */
const ZONES: Record<string, number> = {
  ut: 0,
  utc: 0,
  gmt: 0,
  z: 0,
  wet: 0,
  bst: 60,
  cet: 60,
  cest: 120,
  met: 60,
  mest: 120,
  eet: 120,
  eest: 180,
  msk: 180,
  est: -300,
  edt: -240,
  cst: -360,
  cdt: -300,
  mst: -420,
  mdt: -360,
  pst: -480,
  pdt: -420,
  akst: -540,
  akdt: -480,
  hst: -600,
  ast: -240,
  adt: -180,
  nst: -210,
  ndt: -150,
  ist: 330,
  jst: 540,
  kst: 540,
  hkt: 480,
  sgt: 480,
  aest: 600,
  aedt: 660,
  acst: 570,
  awst: 480,
  nzst: 720,
  nzdt: 780,
  // RFC 822 military zones (A..Z without J); Z = UTC above.
  a: -60,
  b: -120,
  c: -180,
  d: -240,
  e: -300,
  f: -360,
  g: -420,
  h: -480,
  i: -540,
  k: -600,
  l: -660,
  m: -720,
  n: 60,
  o: 120,
  p: 180,
  q: 240,
  r: 300,
  s: 360,
  t: 420,
  u: 480,
  v: 540,
  w: 600,
  x: 660,
  y: 720,
};

export function parseFeedDate(input: string | null | undefined): number | null {
  if (!input) return null;
  const s = input.trim().replace(/\s+/g, ' ');
  if (!s || s.length > 100) return null; // no real date is longer; don't run regexes over junk
  return parseIso(s) ?? parseRfc822(s) ?? parseFallback(s);
}

const ISO =
  /^(\d{4})(?:-?(\d{2})(?:-?(\d{2})(?:[T ](\d{1,2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?\s*(Z|[+-]\d{1,2}(?::?\d{2})?|[A-Za-z]{1,5})?)?)?)?$/;

function parseIso(s: string): number | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const [, y, mo = '1', d = '1', h = '0', mi = '0', se = '0', , zone] = m;
  const offset = zone ? zoneOffset(zone) : 0;
  if (offset === null) return null;
  return toUnix(+y!, +mo, +d, +h, +mi, +se, offset);
}

// [Weekday,] DD Mon YYYY [HH:MM[:SS]] [zone]   — also "Mon DD YYYY", and "DD-Mon-YYYY".
const RFC822 =
  /^(?:\p{L}{2,9}\.?,? *)?(\d{1,2})\.?[ -](\p{L}{3,9})\.?,?[ -](\d{2,4})(?:,? *(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?)? *(?:([+-]\d{1,2}:?\d{2}|[A-Za-z]{1,5}(?:[+-]\d{1,4})?))?(?: .*)?$/u;
const US_STYLE =
  /^(?:[A-Za-z]{2,9},? *)?([A-Za-z]{3,9})\.? (\d{1,2}),? (\d{4})(?:,? *(\d{1,2}):(\d{2})(?::(\d{2}))? *(AM|PM)?)? *([+-]\d{2}:?\d{2}|[A-Za-z]{1,5})?$/i;

function parseRfc822(s: string): number | null {
  let m = RFC822.exec(s);
  if (m) {
    const [, d, mon, y, h = '0', mi = '0', se = '0', zone] = m;
    const month = MONTHS[mon!.toLowerCase()];
    if (!month) return null;
    const offset = zone ? zoneOffset(zone) : 0;
    if (offset === null) return null;
    return toUnix(expandYear(+y!), month, +d!, +h, +mi, +se, offset);
  }
  m = US_STYLE.exec(s);
  if (m) {
    const [, mon, d, y, h = '0', mi = '0', se = '0', ampm, zone] = m;
    const month = MONTHS[mon!.toLowerCase()];
    if (!month) return null;
    let hour = +h;
    if (ampm) hour = (hour % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
    const offset = zone ? zoneOffset(zone) : 0;
    if (offset === null) return null;
    return toUnix(+y!, month, +d!, hour, +mi, +se, offset);
  }
  return null;
}

function parseFallback(s: string): number | null {
  const t = Date.parse(s);
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

function expandYear(y: number): number {
  if (y >= 100) return y;
  return y < 50 ? 2000 + y : 1900 + y; // RFC 2822 §4.3
}

/** Offset east of UTC in minutes, or null for an unknown zone name. */
function zoneOffset(zone: string): number | null {
  const z = zone.trim();
  const numeric = /^([+-])(\d{1,2}):?(\d{2})?$/.exec(z);
  if (numeric) {
    const minutes = +numeric[2]! * 60 + +(numeric[3] ?? 0);
    return numeric[1] === '-' ? -minutes : minutes;
  }
  // "GMT+2", "UTC-0500"
  const based = /^(?:gmt|utc|ut)([+-])(\d{1,2}):?(\d{2})?$/i.exec(z);
  if (based) {
    const minutes = +based[2]! * 60 + +(based[3] ?? 0);
    return based[1] === '-' ? -minutes : minutes;
  }
  const named = ZONES[z.toLowerCase()];
  return named ?? null;
}

function toUnix(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  offsetMinutes: number,
): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 24 || mi > 59 || s > 61) return null;
  const t = Date.UTC(y, mo - 1, d, h, mi, Math.min(s, 59));
  if (!Number.isFinite(t)) return null;
  return Math.floor(t / 1000) - offsetMinutes * 60;
}
