// Package scrub removes secrets and personal data from what Multiverse
// records: headers, URLs, text and JSON. A value is replaced by
// "tok_" + the first 16 hex digits of HMAC-SHA256(run key, value), so equal
// values stay equal (and joinable) inside a run while the value itself never
// reaches a log, event, bundle or artifact. The run key never leaves the
// data dir of the run that made it.
//
// What is scrubbed: the task's secrets wherever they appear; Authorization,
// Cookie, Set-Cookie, CSRF and API-key headers; URL query parameters and
// JSON/form fields whose key names personal data (email, phone, name,
// address, card, password, token, ...); and, anywhere in text, e-mail
// addresses, card-like numbers that pass the Luhn check, and phone numbers.
package scrub
