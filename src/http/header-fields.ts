// Response header fields as RFC 9110 §5 allows them: a token for the name, and a value without CR,
// LF, NUL or other control characters (§5.5). uWS writes what it is given, so a value taken from a
// query parameter or from stored object metadata that carried CR LF would end the header there and
// write headers (or a body) of its own: response splitting. Checked here, where every response
// head is written, whatever the face.

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const CONTROL = /[\0-\x08\n-\x1f\x7f]/;
const CONTROLS = /[\0-\x08\n-\x1f\x7f]/g;

/** The value with each control character (horizontal tab excepted) turned into a space. */
export function safeFieldValue(value: string): string {
  return CONTROL.test(value) ? value.replace(CONTROLS, ' ') : value;
}

/** Names already checked: most responses repeat a handful of them. */
const knownNames = new Set<string>();
const MAX_KNOWN_NAMES = 1024;

export function isFieldName(name: string): boolean {
  if (knownNames.has(name)) return true;
  if (!TOKEN.test(name)) return false;
  if (knownNames.size < MAX_KNOWN_NAMES) knownNames.add(name);
  return true;
}

/** True when `value` may be sent as it is (no control character but horizontal tab). */
export function isSafeFieldValue(value: string): boolean {
  return !CONTROL.test(value);
}
