package gym

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"time"
)

// Whole-site patterns: a WordPress-style admin with flyout submenus and
// several "Add New" links, a post list sorted by date, an inbox with
// icon actions per message, a form refused with an error notice on an
// HTTP 200 page, a flight search whose goal states its values unquoted,
// and a wiki whose article is found only through its own search box.
// The forms here submit by GET to the page itself (as search and lookup
// forms do), and the page's script renders the answer from the query.

// wpSection is a section of the admin menu with an "Add New" screen.
type wpSection struct{ menu, noun, screen string }

var wpSections = []wpSection{
	{"Posts", "post", "post-new.php"},
	{"Media", "media file", "media-new.php"},
	{"Pages", "page", "post-new.php?post_type=page"},
	{"Users", "user", "user-new.php"},
	{"Plugins", "plugin", "plugin-install.php"},
}

// wpAdmin: open the "Add New" screen of a named section of a WordPress
// admin. Submenus are parked at left:-9999em until their menu is
// hovered, except the current section's, which is open in place; the
// current screen's heading has an "Add New" button of its own.
func wpAdmin(r *rand.Rand) spec {
	order := r.Perm(len(wpSections))
	want := wpSections[r.Intn(len(wpSections))]
	cur := wpSections[r.Intn(len(wpSections))]
	start := "index.php"
	if r.Intn(2) == 0 {
		start = "list:" + cur.menu // the list screen of another section
	}
	var b strings.Builder
	b.WriteString(`<style>body{margin:0!important;max-width:none!important}#adminmenuwrap{position:fixed;top:0;bottom:0;left:0;width:160px;background:#1d2327}
#adminmenu{list-style:none;margin:0;padding:0}#adminmenu a{color:#f0f0f1;text-decoration:none;display:block;padding:6px 10px}
#adminmenu li.menu-top{position:relative}#adminmenu li.menu-top:hover>a{background:#2c3338;color:#72aee6}
#adminmenu .wp-submenu{list-style:none;margin:0;padding:4px 0;position:absolute;top:0;left:-9999em;width:160px;background:#2c3338;z-index:9}
#adminmenu li.menu-top:hover .wp-submenu{left:160px}
#adminmenu li.wp-has-current-submenu .wp-submenu{position:static;left:auto;background:#32373c}
#adminmenu .wp-submenu a{font-size:13px;padding:4px 12px}
.dashicons-before::before{font-family:dashicons;display:inline-block;width:20px}
#wpcontent{margin-left:180px;padding:10px}.page-title-action{border:1px solid #2271b1;padding:3px 8px;margin-left:6px;border-radius:3px;text-decoration:none}</style>
<div id="adminmenuwrap"><ul id="adminmenu"><li class="menu-top" id="menu-dashboard"><a href="?screen=index.php" class="menu-top dashicons-before">Dashboard</a><ul class="wp-submenu"><li><a href="?screen=index.php">Home</a></li><li><a href="?screen=update-core.php">Updates</a></li></ul></li>`)
	for _, i := range order {
		s := wpSections[i]
		list := "edit.php"
		switch s.menu {
		case "Media":
			list = "upload.php"
		case "Pages":
			list = "edit.php?post_type=page"
		case "Users":
			list = "users.php"
		case "Plugins":
			list = "plugins.php"
		}
		fmt.Fprintf(&b, `<li class="menu-top" id="menu-%s" data-list="%s" data-new="%s"><a href="?screen=%s" class="menu-top dashicons-before">%s</a><ul class="wp-submenu"><li><a href="?screen=%s">All %s</a></li><li><a href="?screen=%s">Add New</a></li>`,
			strings.ToLower(s.menu), list, s.screen, urlq(list), s.menu, urlq(list), s.menu, urlq(s.screen))
		if s.menu == "Posts" {
			b.WriteString(`<li><a href="?screen=edit-tags.php">Categories</a></li><li><a href="?screen=edit-tags.php?taxonomy=post_tag">Tags</a></li>`)
		}
		b.WriteString(`</ul></li>`)
	}
	fmt.Fprintf(&b, `<li class="menu-top" id="menu-settings"><a href="?screen=options-general.php" class="menu-top dashicons-before">Settings</a><ul class="wp-submenu"><li><a href="?screen=options-general.php">General</a></li><li><a href="?screen=options-reading.php">Reading</a></li></ul></li></ul></div>
<div id="wpcontent"><div class="wrap"><h1 class="wp-heading-inline" id="heading"></h1><a class="page-title-action" id="pta" style="display:none">Add New</a><div id="screen"></div></div></div>
<script>
const q = new URLSearchParams(location.search), screen = q.get('screen') || %s;
const items = [...document.querySelectorAll('#adminmenu li.menu-top')];
let section = items.find(li => li.dataset.list === screen || li.dataset.new === screen) || document.getElementById('menu-dashboard');
section.classList.add('wp-has-current-submenu');
const h = document.getElementById('heading'), pta = document.getElementById('pta'), body = document.getElementById('screen');
const name = section.querySelector('a').textContent;
if (section.dataset.new === screen) {
  h.textContent = name === 'Users' ? 'Add New User' : name === 'Plugins' ? 'Add Plugins' : name === 'Media' ? 'Upload New Media' : 'Add New ' + name.replace(/s$/, '');
  body.innerHTML = '<p><input type="text" placeholder="Add title" size="40"></p>';
  verdict(screen === %s);
} else if (section.dataset.list === screen) {
  h.textContent = name; pta.style.display = ''; pta.href = '?screen=' + encodeURIComponent(section.dataset.new);
  body.innerHTML = '<table class="wp-list-table"><tr><td>%s</td></tr><tr><td>%s</td></tr></table>';
} else {
  h.textContent = 'Dashboard';
  body.innerHTML = '<div class="postbox"><h2>At a Glance</h2><p>%s</p></div><div class="postbox"><h2>Quick Draft</h2><input placeholder="Title"> <button type="button">Save Draft</button></div>';
}
</script>`, jsString(listOf(start)), jsString(want.screen), title(strings.Join(pick(r, lorem, 3), " ")), title(strings.Join(pick(r, lorem, 3), " ")), strings.Join(pick(r, lorem, 10), " "))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Add a new %[1]s.",
		"Go to %[2]s > Add New.",
		"Open the Add New screen under %[2]s.",
		"Create a new %[1]s from the admin menu.",
	}, want.noun, want.menu)
	li := "#menu-" + strings.ToLower(want.menu)
	sp.solve = []step{hover(li), click(li + ` .wp-submenu a:text-is("Add New")`)}
	other := wpSections[(indexOfSection(want)+1)%len(wpSections)]
	ol := "#menu-" + strings.ToLower(other.menu)
	sp.wrong = []step{hover(ol), click(ol + ` .wp-submenu a:text-is("Add New")`)}
	return sp
}

// listOf is the screen a start names: "list:Pages" is the Pages list.
func listOf(start string) string {
	if !strings.HasPrefix(start, "list:") {
		return start
	}
	switch strings.TrimPrefix(start, "list:") {
	case "Media":
		return "upload.php"
	case "Pages":
		return "edit.php?post_type=page"
	case "Users":
		return "users.php"
	case "Plugins":
		return "plugins.php"
	}
	return "edit.php"
}

func indexOfSection(s wpSection) int {
	for i, x := range wpSections {
		if x == s {
			return i
		}
	}
	return -1
}

// urlq escapes a screen for a query value.
func urlq(s string) string {
	return strings.NewReplacer("?", "%3F", "=", "%3D", "&", "%26").Replace(s)
}

// postsByDate: open a post picked by its date or its place in a list
// sorted by date (newest first on some seeds, oldest first on others,
// the sort shown in the column header): "the most recent", "the
// oldest", "the first in the list", "the last in the list". Row actions
// appear on hover, as in WordPress.
func postsByDate(r *rand.Rand) spec {
	n := 5 + r.Intn(4)
	type post struct {
		id    int
		title string
		at    time.Time
	}
	ps := make([]post, n)
	base := time.Date(2010+r.Intn(4), time.Month(1+r.Intn(12)), 1, 9, 0, 0, 0, time.UTC)
	for i := range ps {
		ps[i] = post{100 + 7*i + r.Intn(7), title(strings.Join(pick(r, lorem, 2+r.Intn(3)), " ")), base.Add(time.Duration(r.Intn(400*24)) * time.Hour)}
	}
	asc := r.Intn(3) == 0
	sort.Slice(ps, func(i, j int) bool {
		if asc {
			return ps[i].at.Before(ps[j].at)
		}
		return ps[i].at.After(ps[j].at)
	})
	kinds := []struct {
		phrase string
		at     int
	}{
		{"the most recent post", map[bool]int{true: n - 1, false: 0}[asc]},
		{"the latest post", map[bool]int{true: n - 1, false: 0}[asc]},
		{"the oldest post", map[bool]int{true: 0, false: n - 1}[asc]},
		{"the first post in the list", 0},
		{"the last post in the list", n - 1},
	}
	kd := kinds[r.Intn(len(kinds))]
	want := ps[kd.at]
	var b strings.Builder
	arrow := map[bool]string{true: "sorted asc", false: "sorted desc"}[asc]
	b.WriteString(`<style>.wp-list-table{border-collapse:collapse;width:100%}.wp-list-table td,.wp-list-table th{border-bottom:1px solid #ddd;padding:6px;text-align:left}
.row-actions{position:relative;left:-9999em;font-size:12px}tr:hover .row-actions{left:0}.sorting-indicator::after{content:'\25BE'}.asc .sorting-indicator::after{content:'\25B4'}</style>
<div id="list"><h1>Posts</h1><table class="wp-list-table"><thead><tr><th>Title</th><th>Author</th><th class="` + arrow + `"><a href="#">Date</a><span class="sorting-indicator"></span></th></tr></thead><tbody>`)
	for _, p := range ps {
		fmt.Fprintf(&b, `<tr id="post-%d"><td><strong><a class="row-title" href="?post=%d&action=edit">%s</a></strong><div class="row-actions"><span class="edit"><a href="?post=%d&action=edit">Edit</a> | </span><span class="trash"><a href="#" class="submitdelete">Trash</a> | </span><span class="view"><a href="?p=%d">View</a></span></div></td><td>%s</td><td>Published<br>%s</td></tr>`,
			p.id, p.id, p.title, p.id, p.id, people[r.Intn(len(people))], p.at.Format("2006/01/02 at 3:04 pm"))
	}
	fmt.Fprintf(&b, `</tbody></table></div>
<script>
const q = new URLSearchParams(location.search), id = q.get('post') || q.get('p');
if (id) {
  const row = document.getElementById('post-' + id);
  document.getElementById('list').innerHTML = '<h1>' + (q.get('p') ? '' : 'Edit Post: ') + (row ? row.querySelector('.row-title').textContent : 'Not found') + '</h1><p><a href="?">All Posts</a></p>';
  verdict(id === '%d');
}
document.addEventListener('click', (e) => { const t = e.target.closest('.submitdelete'); if (t) { e.preventDefault(); t.closest('tr').remove(); verdict(false); } });
</script>`, want.id)
	verb := oneOf(r, "Open", "Edit", "View")
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"%[1]s %[2]s.",
		"In the post list, %[3]s %[2]s.",
		"Go to %[2]s and %[3]s it.",
	}, verb, kd.phrase, strings.ToLower(verb))
	sp.solve = []step{click(fmt.Sprintf(`#post-%d a.row-title`, want.id))}
	wrong := ps[(kd.at+1)%n]
	sp.wrong = []step{click(fmt.Sprintf(`#post-%d a.row-title`, wrong.id))}
	return sp
}

// mailAction is an icon action of an inbox row: its id, the icon
// font's ligature, the file and title words, and the goal's verb.
type mailAction struct{ id, ligature, file, tip, verb string }

var mailActions = []mailAction{
	{"star", "star_border", "star-outline", "Star", "Star"},
	{"archive", "archive", "archive", "Archive", "Archive"},
	{"delete", "delete", "trash", "Delete", "Delete"},
	{"read", "drafts", "mark-read", "Mark as read", "Mark as read"},
}

// inbox: act on a message of a web mail inbox with icon-only controls
// per row (a star before the sender; archive, delete and mark-read at
// the end, shown on hover on some seeds): Material icon ligatures,
// background images or sprite classes with a tooltip attribute.
func inbox(r *rand.Rand) spec {
	n := 5 + r.Intn(4)
	senders := pick(r, people, n)
	subjects := make([]string, n)
	for i := range subjects {
		subjects[i] = title(strings.Join(pick(r, lorem, 2+r.Intn(2)), " "))
	}
	k := r.Intn(n)
	act := mailActions[r.Intn(len(mailActions))]
	style := r.Intn(3)
	onHover := r.Intn(2) == 0
	var b strings.Builder
	b.WriteString(`<style>.inbox{border-collapse:collapse;width:100%}.inbox td{border-bottom:1px solid #eee;padding:5px}.inbox tr.unread{font-weight:bold}
.mi{display:inline-block;width:20px;height:20px;cursor:pointer;background:#777 center/16px no-repeat;border-radius:3px;vertical-align:middle;margin:0 2px}
.material-icons{font:12px monospace;cursor:pointer;color:#555;margin:0 3px}.starred{background-color:#f4b400!important;color:#f4b400}
.toast{position:fixed;bottom:10px;left:10px;background:#333;color:#fff;padding:8px 12px}`)
	if onHover {
		b.WriteString(`.inbox .hover-acts{visibility:hidden}.inbox tr:hover .hover-acts{visibility:visible}`)
	}
	b.WriteString(`</style><table class="inbox" id="mail"><tbody>`)
	icon := func(a mailAction) string {
		switch style {
		case 0:
			return fmt.Sprintf(`<i class="material-icons" data-act="%s">%s</i>`, a.id, a.ligature)
		case 1:
			return fmt.Sprintf(`<span class="mi" data-act="%s" style="background-image:url(/gym/icons/%s.svg)"></span>`, a.id, a.file)
		}
		return fmt.Sprintf(`<div class="mi T-I-%s" data-act="%s" data-tooltip="%s"></div>`, strings.ToUpper(a.id[:2]), a.id, a.tip)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<tr class="zA%s" data-thread="t%d"><td><input type="checkbox"></td><td>%s</td><td>%s</td><td><span class="subj">%s</span> - %s</td><td class="hover-acts">`,
			map[bool]string{true: " unread", false: ""}[r.Intn(2) == 0], i, icon(mailActions[0]), senders[i], subjects[i], strings.Join(pick(r, lorem, 5), " "))
		for _, a := range mailActions[1:] {
			b.WriteString(icon(a))
		}
		fmt.Fprintf(&b, `</td><td>%s %d</td></tr>`, oneOf(r, "Mar", "Apr", "May", "Jun"), 1+r.Intn(28))
	}
	fmt.Fprintf(&b, `</tbody></table>
<script>
document.getElementById('mail').addEventListener('click', (e) => {
  const a = e.target.closest('[data-act]');
  if (!a) return;
  const row = a.closest('tr'), act = a.dataset.act;
  if (act === 'star') a.classList.toggle('starred');
  else if (act === 'read') row.classList.remove('unread');
  else row.style.display = 'none';
  const t = document.createElement('div'); t.className = 'toast'; t.textContent = act === 'delete' ? 'Conversation moved to Trash.' : act === 'archive' ? 'Conversation archived.' : 'Done.'; document.body.appendChild(t);
  verdict(row.dataset.thread === 't%d' && act === %s);
});
</script>`, k, jsString(act.id))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"%[1]s the email from %[2]s.",
		"%[1]s the message %[3]s.",
		"%[1]s %[2]s's mail about %[3]s.",
		"In the inbox, %[4]s the message from %[2]s with the subject %[3]s.",
	}, act.verb, senders[k], subjects[k], strings.ToLower(act.verb))
	row := fmt.Sprintf(`tr[data-thread="t%d"]`, k)
	sp.solve = []step{hover(row), click(fmt.Sprintf(`%s [data-act="%s"]`, row, act.id))}
	wr := fmt.Sprintf(`tr[data-thread="t%d"]`, (k+1)%n)
	sp.wrong = []step{hover(wr), click(fmt.Sprintf(`%s [data-act="%s"]`, wr, act.id))}
	return sp
}

// refusedForm: send a contact form the site refuses until it is filled
// right: a required consent box the goal does not mention, answered
// with an error notice on an ordinary HTTP 200 page that keeps the
// values typed (the form submits by GET to itself).
func refusedForm(r *rand.Rand) spec {
	name := people[r.Intn(len(people))]
	email := strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "@" + oneOf(r, "example.org", "mail.test")
	topics := pick(r, []string{"Billing", "Technical support", "Sales", "Partnerships", "Press", "Other"}, 4)
	topic := topics[r.Intn(len(topics))]
	send := oneOf(r, "Send", "Send message", "Submit", "Contact us")
	consent := oneOf(r, "I agree to the privacy policy", "I accept the terms of service", "I consent to being contacted")
	var opts strings.Builder
	opts.WriteString(`<option value="">Choose a topic</option>`)
	for _, t := range topics {
		fmt.Fprintf(&opts, `<option>%s</option>`, t)
	}
	body := fmt.Sprintf(`<h2>Contact us</h2><form method="get" id="cf">
<p><label for="nm">Your name *</label><br><input id="nm" name="your-name" size="30"></p>
<p><label for="em">Email *</label><br><input id="em" name="your-email" size="30"></p>
<p><label for="tp">Topic</label><br><select id="tp" name="topic">%s</select></p>
<p><label for="msg">Message</label><br><textarea id="msg" name="message" rows="3" cols="40"></textarea></p>
<p><label><input type="checkbox" name="consent" value="1" id="consent"> %s *</label></p>
<p><button type="submit">%s</button></p></form>%s
<script>
const q = new URLSearchParams(location.search);
if (q.has('your-name')) {
  const f = document.getElementById('cf');
  for (const [k, v] of q) { const el = f.elements[k]; if (el && el.type !== 'checkbox') el.value = v; }
  const missing = [];
  if (!q.get('your-name').trim()) missing.push('your name');
  if (!/^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(q.get('your-email') || '')) missing.push('a valid email address');
  if (!q.get('consent')) missing.push('your consent to the policy');
  if (missing.length) siteError('There was a problem with your submission. Please provide ' + missing.join(', ') + '.');
  else {
    f.outerHTML = '<p class="sent">Thank you for your message. It has been sent.</p>';
    verdict(q.get('your-name').trim().toLowerCase() === %s && q.get('your-email').trim().toLowerCase() === %s && q.get('topic') === %s);
  }
}
</script>`, opts.String(), consent, send, notice(r), jsString(strings.ToLower(name)), jsString(email), jsString(topic))
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Send the contact form as %[1]s, %[2]s, with the topic %[3]s.",
		"Contact the site about %[3]s: name %[1]s, email %[2]s.",
		"Fill in the contact form with the name %[1]s and the email %[2]s, choose %[3]s and %[4]s it.",
	}, name, email, topic, strings.ToLower(strings.Fields(send)[0]))
	sp.solve = []step{fill("#nm", name), fill("#em", email), choose("#tp", topic), click("#cf button"),
		// refused: the notice, then the consent box, the values kept
		{"wait_for", ".site-error", ""}, tick("#consent"), click("#cf button")}
	other := topics[(indexOf(topics, topic)+1)%len(topics)]
	sp.wrong = []step{fill("#nm", name), fill("#em", email), choose("#tp", other), tick("#consent"), click("#cf button")}
	return sp
}

var airports = []string{"Boston", "Denver", "Chicago", "Seattle", "Atlanta", "Dallas", "Miami", "Phoenix", "Houston", "Detroit"}

// flightSearch: search flights with a form whose goal states the values
// unquoted ("from Boston to Denver on 10/11/2011"); the date field takes
// mm/dd/yyyy, the trip type and passengers keep their defaults.
func flightSearch(r *rand.Rand) spec {
	ft := pick(r, airports, 2)
	from, to := ft[0], ft[1]
	day := seededDay(r)
	placeholders := r.Intn(2) == 0
	lbl := func(id, text, ph string) string {
		if placeholders {
			return fmt.Sprintf(`<input id="%s" name="%s" placeholder="%s" size="16">`, id, id, ph)
		}
		return fmt.Sprintf(`<label for="%s">%s</label> <input id="%s" name="%s" size="16">`, id, text, id, id)
	}
	search := oneOf(r, "Search flights", "Search", "Find flights")
	body := fmt.Sprintf(`<h2>%s</h2><form method="get" id="fs">
<p><label><input type="radio" name="trip" value="oneway" checked> One way</label> <label><input type="radio" name="trip" value="round"> Round trip</label></p>
<p>%s %s</p><p>%s <label>Passengers <select name="pax"><option>1</option><option>2</option><option>3</option></select></label></p>
<p><button type="submit">%s</button></p></form><div id="results"></div>%s
<script>
const q = new URLSearchParams(location.search);
if (q.has('from')) {
  const f = document.getElementById('fs');
  for (const [k, v] of q) { const el = f.elements[k]; if (el && el.type !== 'radio') el.value = v; }
  const norm = (s) => (s || '').trim().toLowerCase();
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec((q.get('depart') || '').trim());
  if (!norm(q.get('from'))) siteError('Please enter a departure city.');
  else if (!norm(q.get('to'))) siteError('Please enter a destination.');
  else if (!m) siteError('Please enter the departure date as mm/dd/yyyy.');
  else {
    const ok = norm(q.get('from')) === %s && norm(q.get('to')) === %s && +m[1] === %d && +m[2] === %d && +m[3] === %d;
    document.getElementById('results').innerHTML = ok ? '<h3>3 flights found</h3><ol><li>07:15</li><li>11:40</li><li>18:05</li></ol>' : '<p>No flights found for this search.</p>';
    verdict(ok);
  }
}
</script>`, oneOf(r, "Book a flight", "Flights", "Where to?"), lbl("from", "From", "Leaving from"), lbl("to", "To", "Going to"), lbl("depart", "Depart", "mm/dd/yyyy"), search, notice(r),
		jsString(strings.ToLower(from)), jsString(strings.ToLower(to)), int(day.Month()), day.Day(), day.Year())
	date := day.Format("01/02/2006")
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Find flights from %[1]s to %[2]s on %[3]s.",
		"Search for a one-way flight to %[2]s from %[1]s, leaving %[3]s.",
		"Flights %[1]s to %[2]s, departing %[3]s: search.",
		"I fly from: %[1]s to: %[2]s on %[3]s. Look for flights.",
	}, from, to, date)
	sp.solve = []step{fill("#from", from), fill("#to", to), fill("#depart", date), click("#fs button")}
	sp.wrong = []step{fill("#from", to), fill("#to", from), fill("#depart", date), click("#fs button")}
	return sp
}

// siteSearch: open a wiki article no page links to: only the site's own
// search box finds it (MediaWiki: an exact title goes straight to the
// article on some seeds, others list results with lookalike titles).
func siteSearch(r *rand.Rand) spec {
	city := cities[r.Intn(len(cities))]
	titles := []string{city, city + " Airport", "University of " + city, "Port of " + city, city + " Cathedral", city + " Line"}
	titles = pick(r, titles, 4)
	want := titles[r.Intn(len(titles))]
	direct := r.Intn(2) == 0
	icon := r.Intn(2) == 0
	btn := `<button type="submit">Search</button>`
	if icon {
		btn = `<button type="submit" class="search-btn" title="Search"><span class="icon icon-search"></span></button>`
	}
	body := fmt.Sprintf(`<style>.search-btn .icon{display:inline-block;width:14px;height:14px;background:url(/gym/icons/search.svg) center/14px no-repeat}
#side{float:left;width:130px;font-size:13px}#side a{display:block}#content{margin-left:140px}</style>
<header><form id="searchform" method="get"><input type="search" name="search" placeholder="Search %s" id="searchInput" autocomplete="off"> %s</form></header>
<nav id="side"><a href="?">Main page</a><a href="?title=%s">Random article</a><a href="?title=Special:RecentChanges">Recent changes</a><a href="?title=Help:Contents">Help</a></nav>
<div id="content"><h1 id="firstHeading">Main Page</h1><p>%s</p><p>%s</p></div>
<script>
const titles = %s, q = new URLSearchParams(location.search), c = document.getElementById('content');
const esc = (s) => s.replace(/[&<>"]/g, (x) => '&#' + x.charCodeAt(0) + ';');
const term = (q.get('search') || '').trim().toLowerCase();
if (term) {
  const exact = titles.find(t => t.toLowerCase() === term);
  if (exact && %t) location.replace('?title=' + encodeURIComponent(exact));
  else {
    const hits = titles.filter(t => t.toLowerCase().includes(term) || term.includes(t.toLowerCase().split(' ')[0]));
    c.innerHTML = '<h1>Search results</h1>' + (hits.length ? '<ul class="mw-search-results">' + hits.map(t => '<li><a href="?title=' + encodeURIComponent(t) + '">' + esc(t) + '</a> <span class="searchresult">' + esc(t) + ' is a topic of this wiki.</span></li>').join('') + '</ul>' : '<p>There were no results matching the query.</p>');
  }
} else if (q.get('title')) {
  const t = q.get('title');
  c.innerHTML = '<h1 id="firstHeading">' + esc(t) + '</h1><p>' + esc(t) + ' is a topic of this wiki.</p>';
  if (!t.includes(':')) verdict(t === %s);
}
</script>`, oneOf(r, "Wikipedia", "the wiki", "Docs"), btn, urlq(titles[(indexOf(titles, want)+1)%len(titles)]), strings.Join(pick(r, lorem, 20), " "), strings.Join(pick(r, lorem, 15), " "),
		jsList(titles), direct, jsString(want))
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Find the article about %[1]s.",
		"Open the page %[1]s on this wiki.",
		"Look up %[1]s and open its article.",
		"Go to the %[1]s article.",
	}, want)
	sp.solve = []step{fill("#searchInput", want), key("#searchInput", "Enter")}
	if !direct {
		sp.solve = append(sp.solve, click(fmt.Sprintf(`.mw-search-results a:text-is("%s")`, want)))
	}
	sp.wrong = []step{click(`#side a:text-is("Random article")`)}
	return sp
}
