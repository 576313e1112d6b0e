// HTML's void elements (https://html.spec.whatwg.org/#void-elements): they have no content and no
// end tag, so they never nest. The nesting bound and the conformance checker both need the list.

export const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
