/**
 * A client secret an operator chooses (an import document's `clientSecret`) must be long enough to hold 256 random
 * bits. It may use only the base64url alphabet (RFC 4648 §5: A–Z, a–z, 0–9, `-`, `_`), which needs no escaping in a
 * form body, and its minimum length is what 256 bits take in the smallest of these alphabets that has all its
 * characters (length × log2(alphabet size) ≥ 256), so hex or decimal output of a generator is measured as such.
 * A random 43-character base64url string falls into a longer rule with a chance below one in a billion.
 */
const RULES: ReadonlyArray<{ alphabet: RegExp; name: string; minLength: number }> = [
  { alphabet: /^[0-9_-]+$/, name: 'decimal digits', minLength: 78 },
  { alphabet: /^[0-9a-fA-F_-]+$/, name: 'hexadecimal digits', minLength: 64 },
  { alphabet: /^(?:[0-9a-z_-]+|[0-9A-Z_-]+)$/, name: 'letters of one case and digits', minLength: 55 },
  { alphabet: /^[0-9A-Za-z_-]+$/, name: 'base64url characters', minLength: 43 },
];

export const MIN_CLIENT_SECRET_LENGTH = 43;

const HOW_TO_MAKE_ONE = "make one with `openssl rand -base64 32 | tr '+/' '-_' | tr -d '='` (43 characters), or leave clientSecret out to have one generated and shown once in the import report";

/** What is wrong with a chosen client secret, or null when it is strong enough. */
export function clientSecretProblem(secret: string): string | null {
  const rule = RULES.find(({ alphabet }) => alphabet.test(secret));
  if (!rule) return `may use only A-Z, a-z, 0-9, "-" and "_" (base64url) and must have at least ${MIN_CLIENT_SECRET_LENGTH} of them; ${HOW_TO_MAKE_ONE}`;
  if (secret.length >= rule.minLength) return null;
  return `is too short to hold 256 random bits: a secret of ${rule.name} needs at least ${rule.minLength} characters, this one has ${secret.length}; ${HOW_TO_MAKE_ONE}`;
}
