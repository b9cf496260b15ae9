// Package cms embeds "Inkwell CMS", a test site modelled on the admin area
// of a server-rendered content management system: a login, admin pages
// behind it, forms that change the site on every page, hidden one-time
// nonces, refusals shown as an error notice on an HTTP 200 page, a
// background POST the pages send on their own, and a flyout side menu.
// It exists so tests can check that exploration changes nothing: the site
// records every state-changing request it receives ([Site.Writes],
// [Site.Count], GET /__test/writes).
//
// The site is an [http.Handler]; serve it with sites.Serve on
// 127.0.0.1:0 or with httptest.
//
// # Invariants
//
//   - Determinism: the same sequence of requests on two fresh sites with
//     the same options gives byte-identical response bodies. Session
//     tokens and nonces are derived from a per-site counter (HMAC of a
//     fixed key), never from randomness or the clock; ids are sequential;
//     lists are sorted.
//   - Self-contained: pages load nothing from the network; CSS and JS are
//     inline, templates embedded.
//   - Every request whose method is not GET, HEAD or OPTIONS is recorded
//     when it arrives (method, path, form field names, then the status),
//     outside /__test/. Nothing else is recorded.
//   - A form's nonce is valid only for the form it was issued for, and only
//     if this site issued it; a form without one changes nothing (403).
//     Every load issues a new one, so the nonce differs on every load.
//   - A client_reference binds to the user its request created: the same
//     reference again replays that outcome (303 to the same page) and
//     creates nothing; a refused request binds nothing.
//
// # Routes
//
//	GET  /                        302 /admin/
//	GET  /login[?next=…]          login form (username, password, hidden _csrf, redirect_to)
//	POST /login                   303 to next with the session cookie, or 200 + error notice
//	GET  /admin/                  dashboard (with a Quick Draft form)
//	GET  /admin/users[?s=…&role=…&created=NAME]   users table, search box, row actions
//	GET  /admin/users/new         create-user form (_nonce, client_reference, role select)
//	POST /admin/users             303 /admin/users?created=NAME, or 200 + error notice, or 403
//	GET  /admin/users/{id}/edit, POST /admin/users/{id}             edit a user
//	POST /admin/users/{id}/block  block a user (hidden _nonce required)
//	GET  /admin/users/{id}/delete, POST /admin/users/{id}/delete    delete, after a confirmation page
//	GET  /admin/profile, POST /admin/profile   the profile; its form is on every admin page
//	GET  /admin/posts, GET /admin/posts/new, POST /admin/posts      posts and drafts
//	GET  /admin/settings, POST /admin/settings general settings
//	POST /api/heartbeat           background polling of every admin page (at load, then every 15 s)
//	POST /api/logout, DELETE /api/session   end the session (the "Log out" control)
//	GET  /api/users[?client_reference=KEY][&username=NAME]   users as JSON, no login needed
//	GET  /__test/writes           the write record as JSON (not itself recorded)
//
// Every admin page has the top bar (the user's display name and "Log
// out", a button whose script POSTs to /api/logout), the side menu (Posts,
// Users and Settings open a flyout on hover or click; the current
// section's submenu is shown open), the "Your profile" form (e-mail
// prefilled, "Update Profile", POST /admin/profile) and the heartbeat
// script. Without a live session an admin page answers 302 to
// /login?next=PATH.
//
// A refused user answers 200 with the form again and a notice such as
//
//	<div class="notice notice-error"><p><strong>Error:</strong> This username is already registered. Please choose another one.</p></div>
//
// and a created one shows, on /admin/users?created=NAME, the notice
// #user-created ("New user created.") whose link [data-testid=created-user]
// carries the username in data-username.
package cms
