// Package patterns serves small pages built from patterns real
// server-rendered and script-heavy applications use, each one a cause of
// a strict replay that did not hold: a script loader that caches its
// modules in local storage and fetches the rest concurrently, a login
// cookie holding a short user id, a hover-sensitive element at the page's
// top-left corner (on every page), a page loaded twice in one step, a
// wizard whose every render writes a fresh form token, a form whose personal values are echoed back, a WebSocket feed and an
// EventSource stream the page renders, console errors and an uncaught
// exception, a slow single-page navigation, a target below the fold, and
// a checkout with two equal ways on, one of them slow (what a run learns
// from for the next).
//
// The site is an [http.Handler]; serve it with httptest or sites.Serve on
// 127.0.0.1:0. Its tasks are in testdata/ (start_url
// http://patterns.invalid/...); [Task] and [TaskFile] give them with the
// address the site is served at.
//
// # Invariants
//
//   - Self-contained: pages load nothing from other origins.
//   - No page changes the site but POST /login, which only sets the
//     session cookies. The twice page counts its loads (its responses
//     differ from load to load, as a page with a visit counter does); the
//     wizard issues a new form token on every render.
//
// # Routes
//
//	GET  /login              login form (username, password)
//	POST /login              303 /welcome with the cookies sid (a long random
//	                         credential) and uid=1; 200 with an error otherwise
//	GET  /welcome            caches modules a and b in local storage
//	GET  /app                the module loader (302 /login without a session)
//	GET  /mod/{a,b,c,d}.js   the modules
//	GET  /twice              renders its load number, then reloads itself once
//	GET  /twice/data         the load number again, fetched by the page
//	GET  /wizard             a plan form with a fresh token (hidden field) per render
//	GET  /wizard/details     the chosen plan and a Confirm form with a fresh token;
//	                         403 for a token the site never issued
//	GET  /wizard/done        Finished: PLAN (403 for a token never issued)
//	GET  /form, /form/thanks a form whose name and e-mail are echoed back
//	GET  /live               renders a WebSocket feed and an EventSource stream
//	GET  /live/ws            the feed (WebSocket): three prices, then echoes
//	GET  /live/events        the stream (text/event-stream): two events
//	GET  /console            console errors, a warning and an uncaught exception
//	GET  /spa                a single-page app whose Reports view loads slowly
//	GET  /api/reports        answers after Options.Slow
//	GET  /below              a Confirm button far below the fold
//	GET  /routes             a checkout: links to a standard and an express way
//	GET  /routes/{way}       the way's page: a Continue link (testid continue)
//	GET  /routes/{way}/continue  303 /routes/review after RouteSlow for the slow
//	                         way (Site.SetSlowRoute), RouteQuick for the other
//	GET  /routes/review      the review both ways reach
package patterns
