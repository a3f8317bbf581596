// Object keys that break naive encoders (style.md §11): spaces, +, %, //, leading slash, non-BMP, 1024 bytes.

export const NASTY_KEYS = [
  'plain.txt',
  'with space',
  'a+b',
  '100%',
  '%2F literally',
  'a//b',
  '/leading-slash',
  '//two-leading',
  'trailing/',
  'dots/./../x',
  "sub-delims!$&'()*+,;=",
  'query?x=y&z#frag',
  'unicode ü é 中文',
  'non-BMP 😀𝄞',
  'tilde~-_.',
  'tab\there',
  'x'.repeat(1024),
];
