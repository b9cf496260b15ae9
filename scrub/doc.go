// Package scrub removes secrets and personal data from what Multiverse
// records: headers, URLs, text and JSON. A value is replaced by
// "tok_" + the first 16 hex digits of HMAC-SHA256(run key, value), so equal
// values stay equal (and joinable) inside a run while the value itself never
// reaches a log, event, bundle or artifact. The run key never leaves the
// data dir of the run that made it.
//
// What is scrubbed: the task's secrets wherever they appear (those shorter
// than MinSubstring characters wherever they are a whole value, see
// MinSubstring); Authorization, Cookie, Set-Cookie, CSRF and API-key
// headers; URL query parameters and JSON/form fields whose key names
// personal data (email, phone, name, address, card, password, token, ...);
// and, anywhere in text, e-mail addresses (plain or URL-encoded, "+"
// included), card-like numbers that pass the Luhn check, phone numbers and
// the credentials of URLs (scheme://user:password@host).
//
// A page writes a value through encodings: HTML character references
// (&#43;, &#x2B;, &plus;, &commat;), \uXXXX escapes in JSON and scripts,
// percent-encoding in URLs and form bodies. The rules above see through
// them (one level deep): a value written partly or wholly encoded is
// found and replaced whole, with the token of its plain form, so
// "jane&#43;x@example.com" and "jane+x@example.com" have one token and
// nothing of either stays. A value found by its key is tokenized in its
// plain form too.
//
// The same scrubber runs where Multiverse captures and where it replays:
// scrubbing is idempotent, so a replay that types tokens and serves
// scrubbed responses scrubs to the same bytes the capture recorded. The
// rules of what is personal are written once, as regular expression
// sources that Go and a page's JavaScript read alike (PagePatterns): the
// browser masks in screenshots exactly what the scrubber tokenizes.
package scrub
