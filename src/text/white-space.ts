/**
 * What /\s/ matches and String.prototype.trim() removes (ECMAScript WhiteSpace and LineTerminator),
 * by char code, for scanners that walk a text without making substrings.
 */
export function isWhiteSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
