package gym

import (
	"fmt"
	"math/rand"
	"strings"
)

// Composite widgets as real sites write them: a file explorer of plain
// divs behind one delegated listener, a typeahead's list of plain items,
// an icon-only toolbar, a feed with a "more" menu per item, a menu bar
// with nested submenus, and scripted links.

var (
	folderNames = []string{"src", "docs", "tests", "assets", "scripts", "config", "lib", "build", "public", "vendor"}
	fileNames   = []string{"index.js", "README.md", "config.yaml", "main.go", "utils.py", "styles.css", "notes.txt", "Makefile", "app.ts", "data.json", "LICENSE", "schema.sql"}
)

// fileExplorer: open a file in a folder of a file explorer (VS Code,
// GitLab): rows are divs without roles, a single click listener on the
// container toggles folders and opens files, and the same file name
// appears in several folders.
func fileExplorer(r *rand.Rand) spec {
	dirs := pick(r, folderNames, 3+r.Intn(3))
	want := fileNames[r.Intn(len(fileNames))]
	k := r.Intn(len(dirs))
	var b strings.Builder
	b.WriteString(`<style>.fx{font:13px monospace;border:1px solid #ccc;width:260px;padding:4px 0;user-select:none}
.fx-row{padding:2px 6px;cursor:pointer;white-space:nowrap}.fx-row:hover{background:#e8eef7}
.fx-caret{display:inline-block;width:12px}.fx-caret::before{content:'\25B8'}.fx-open>.fx-row .fx-caret::before{content:'\25BE'}
.fx-icon{display:inline-block;width:14px;height:12px;margin-right:4px;background:#c9a227}.fx-file .fx-icon{background:#9aa}
.fx-children{display:none}.fx-open>.fx-children{display:block}.fx-children .fx-row{padding-left:24px}
#editor{border:1px solid #ccc;min-height:60px;padding:6px;margin-top:8px;font:12px monospace}</style>
<div class="fx" id="explorer">`)
	for i, d := range dirs {
		files := pick(r, fileNames, 3+r.Intn(3))
		has := false
		for _, f := range files {
			has = has || f == want
		}
		if !has && (i == k || r.Intn(2) == 0) {
			files[r.Intn(len(files))] = want // the same name in several folders
		}
		fmt.Fprintf(&b, `<div class="fx-dir"><div class="fx-row" data-path="%s"><span class="fx-caret"></span><span class="fx-icon"></span>%s</div><div class="fx-children">`, d, d)
		for _, f := range files {
			fmt.Fprintf(&b, `<div class="fx-row fx-file" data-path="%s/%s"><span class="fx-icon"></span>%s</div>`, d, f, f)
		}
		b.WriteString(`</div></div>`)
	}
	target := dirs[k] + "/" + want
	other := ""
	for _, d := range dirs {
		if d != dirs[k] {
			other = d
			break
		}
	}
	fmt.Fprintf(&b, `</div><pre id="editor">No file open</pre>
<script>
document.getElementById('explorer').addEventListener('click', (e) => {
  const row = e.target.closest('.fx-row');
  if (!row) return;
  if (!row.classList.contains('fx-file')) { row.parentElement.classList.toggle('fx-open'); return; }
  document.getElementById('editor').textContent = '// ' + row.dataset.path + '\n' + %s;
  verdict(row.dataset.path === %s);
});
</script>`, jsString(strings.Join(pick(r, lorem, 6), " ")), jsString(target))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Open the file %[2]s in the %[1]s folder.",
		"In %[1]s, open %[2]s.",
		"Open %[1]s/%[2]s in the file explorer.",
		"Show the contents of %[2]s from the folder %[1]s.",
	}, dirs[k], want)
	sp.solve = []step{click(fmt.Sprintf(`.fx-row[data-path="%s"]`, dirs[k])), click(fmt.Sprintf(`.fx-row[data-path="%s"]`, target))}
	// The other folder may not hold the file; any file of it is wrong.
	sp.wrong = []step{click(fmt.Sprintf(`.fx-row[data-path="%s"]`, other)), click(fmt.Sprintf(`.fx-row.fx-file[data-path^="%s/"] >> nth=0`, other))}
	return sp
}

var usCities = []string{"Boston", "Boulder", "Bozeman", "Denver", "Denton", "Dayton", "Portland", "Porterville", "Austin", "Aurora",
	"Albany", "Salem", "Salt Lake City", "San Jose", "Santa Fe", "Springfield", "Spokane", "Tucson", "Tulsa", "Tampa"}

// suggestList: type into a text box and choose from the plain <li>
// suggestions a script shows under it (a typeahead without ARIA: a
// delegated mousedown on the list, a hidden field for the chosen id).
func suggestList(r *rand.Rand) spec {
	want := usCities[r.Intn(len(usCities))]
	label := oneOf(r, "City", "Destination", "Home town", "Location")
	save := oneOf(r, "Save", "Continue", "Update", "Next")
	var same []string // cities sharing the first three letters
	for _, c := range usCities {
		if c != want && strings.HasPrefix(c, want[:3]) {
			same = append(same, c)
		}
	}
	body := fmt.Sprintf(`<style>.ta{position:relative;display:inline-block}.ta ul{position:absolute;top:100%%;left:0;right:0;margin:0;padding:0;list-style:none;background:#fff;border:1px solid #aaa;z-index:5}
.ta li{padding:3px 6px;cursor:pointer}.ta li:hover,.ta li.hl{background:#def}</style>
<form onsubmit="return false"><div>%s</div><div class="ta"><input type="text" id="city" autocomplete="off"><input type="hidden" id="city_id"><ul id="sg" style="display:none"></ul></div>
<p><button type="button" id="save">%s</button></p></form>%s
<script>
const all = %s;
const box = document.getElementById('city'), sg = document.getElementById('sg'), hid = document.getElementById('city_id');
box.addEventListener('input', () => {
  hid.value = '';
  const v = box.value.trim().toLowerCase();
  sg.innerHTML = '';
  if (v.length < 2) { sg.style.display = 'none'; return; }
  for (const c of all) if (c.toLowerCase().includes(v)) {
    const li = document.createElement('li');
    li.dataset.id = c.toLowerCase().replace(/ /g, '-');
    li.innerHTML = '<b>' + c.slice(0, v.length) + '</b>' + c.slice(v.length) + ', US';
    sg.appendChild(li);
  }
  sg.style.display = sg.children.length ? 'block' : 'none';
});
sg.addEventListener('mousedown', (e) => {
  const li = e.target.closest('li');
  if (!li) return;
  e.preventDefault();
  box.value = li.textContent; hid.value = li.dataset.id; sg.style.display = 'none';
});
document.getElementById('save').addEventListener('click', () => {
  if (!hid.value) { siteError('Please choose a %s from the list.'); return; }
  verdict(hid.value === %s);
});
</script>`, label, save, notice(r), jsList(usCities), strings.ToLower(label), jsString(strings.ToLower(strings.ReplaceAll(want, " ", "-"))))
	sp := spec{body: body}
	sp.phrase(r, []string{
		"Set the %[2]s to %[1]s and click %[3]s.",
		"Choose %[1]s as your %[2]s, then press %[3]s.",
		"Type %[1]s in the %[2]s box, pick it from the suggestions and %[4]s.",
		"%[5]s: %[1]s. Then %[4]s.",
	}, want, strings.ToLower(label), save, strings.ToLower(save), label)
	id := strings.ToLower(strings.ReplaceAll(want, " ", "-"))
	sp.solve = []step{fill("#city", want[:3]), click(fmt.Sprintf(`#sg li[data-id="%s"]`, id)), click("#save")}
	wrong := "Tulsa"
	if want == wrong {
		wrong = "Tampa"
	}
	if len(same) > 0 {
		wrong = same[0]
	}
	sp.wrong = []step{fill("#city", wrong[:3]), click(fmt.Sprintf(`#sg li[data-id="%s"]`, strings.ToLower(strings.ReplaceAll(wrong, " ", "-")))), click("#save")}
	return sp
}

// tool is a toolbar command: its command id, the icon's class and file
// words, the names people call it by, and what using it does.
type tool struct {
	cmd, fa, file, svg string
	names              []string
	does               string
}

var tools = []tool{
	{"bold", "fa-bold", "format-bold", "bold", []string{"Bold"}, "make the text bold"},
	{"italic", "fa-italic", "format-italic", "italic", []string{"Italic"}, "make the text italic"},
	{"underline", "fa-underline", "format-underlined", "underline", []string{"Underline"}, "underline the text"},
	{"strike", "fa-strikethrough", "strikethrough", "strikethrough", []string{"Strikethrough", "Strike-through"}, "strike through the text"},
	{"link", "fa-link", "insert-link", "link", []string{"Link", "Insert link"}, "insert a link"},
	{"quote", "fa-quote-right", "format-quote", "quote", []string{"Quote", "Blockquote"}, "turn the paragraph into a quote"},
	{"code", "fa-code", "code", "code", []string{"Code"}, "format the text as code"},
	{"ul", "fa-list-ul", "format-list-bulleted", "list-unordered", []string{"Bulleted list", "Bullet list"}, "start a bulleted list"},
	{"ol", "fa-list-ol", "format-list-numbered", "list-ordered", []string{"Numbered list"}, "start a numbered list"},
	{"image", "fa-image", "insert-photo", "image", []string{"Image", "Insert image"}, "insert an image"},
	{"undo", "fa-undo", "undo", "undo", []string{"Undo"}, "undo the last change"},
	{"redo", "fa-redo", "redo", "redo", []string{"Redo"}, "redo the last change"},
}

// iconToolbar: press a command of an editor's icon-only toolbar. The
// icons are an icon font's class, a background image or an SVG sprite
// (by seed); a title tooltip on some seeds only; one delegated listener.
func iconToolbar(r *rand.Rand) spec {
	ts := make([]tool, 0, 8)
	for _, i := range r.Perm(len(tools))[:7+r.Intn(4)] {
		ts = append(ts, tools[i])
	}
	want := ts[r.Intn(len(ts))]
	style := r.Intn(3)
	titles := r.Intn(2) == 0
	var b strings.Builder
	b.WriteString(`<style>.toolbar{display:flex;gap:2px;border:1px solid #ccc;padding:3px;background:#f6f6f6}
.toolbar .tb{width:28px;height:26px;border:1px solid transparent;background:none;padding:3px;cursor:pointer;display:inline-flex;align-items:center;justify-content:center}
.toolbar .tb:hover{border-color:#999}.tb i,.tb .ico{display:block;width:16px;height:16px;background:#555 center/16px no-repeat;border-radius:2px}
.tb .ico{background-color:transparent}.tb svg{width:16px;height:16px;fill:#333}
.editor{border:1px solid #ccc;border-top:0;min-height:80px;padding:8px}</style>`)
	if style == 2 {
		b.WriteString(`<svg style="display:none" xmlns="http://www.w3.org/2000/svg">`)
		for _, t := range ts {
			fmt.Fprintf(&b, `<symbol id="icon-%s" viewBox="0 0 16 16"><path d="M%d 2h8v%d H%d z"/></symbol>`, t.svg, 2+r.Intn(4), 4+r.Intn(10), 2+r.Intn(4))
		}
		b.WriteString(`</svg>`)
	}
	b.WriteString(`<div class="toolbar" id="tb">`)
	for i, t := range ts {
		if i > 0 && r.Intn(4) == 0 {
			b.WriteString(`<span style="width:1px;background:#ccc;margin:0 4px"></span>`)
		}
		title := ""
		if titles {
			title = fmt.Sprintf(` title="%s"`, t.names[0])
		}
		var icon string
		switch style {
		case 0:
			icon = fmt.Sprintf(`<i class="fa %s"></i>`, t.fa)
		case 1:
			icon = fmt.Sprintf(`<span class="ico" style="background-image:url(/gym/icons/%s.svg)"></span>`, t.file)
		default:
			icon = fmt.Sprintf(`<svg class="icon"><use href="#icon-%s"></use></svg>`, t.svg)
		}
		tag := oneOf(r, "button", "span")
		if tag == "button" {
			fmt.Fprintf(&b, `<button type="button" class="tb" data-cmd="%s"%s>%s</button>`, t.cmd, title, icon)
		} else {
			fmt.Fprintf(&b, `<span class="tb" data-cmd="%s"%s>%s</span>`, t.cmd, title, icon)
		}
	}
	fmt.Fprintf(&b, `</div><div class="editor" contenteditable="true">%s</div>
<script>
document.getElementById('tb').addEventListener('click', (e) => {
  const t = e.target.closest('[data-cmd]');
  if (!t) return;
  t.classList.toggle('active');
  verdict(t.dataset.cmd === %s);
});
</script>`, strings.Join(pick(r, lorem, 14), " "), jsString(want.cmd))
	name := want.names[r.Intn(len(want.names))]
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Click the %[1]s button in the toolbar.",
		"Use the toolbar to %[2]s.",
		"Press %[1]s on the editor's toolbar.",
		"In the editor, %[2]s with the toolbar button.",
	}, name, want.does)
	sp.solve = []step{click(fmt.Sprintf(`[data-cmd="%s"]`, want.cmd))}
	for _, t := range ts {
		if t.cmd != want.cmd {
			sp.wrong = []step{click(fmt.Sprintf(`[data-cmd="%s"]`, t.cmd))}
			break
		}
	}
	return sp
}

// postAction is an entry of a feed item's menu and the verbs a goal
// uses for it.
type postAction struct{ item, verb string }

var postActions = []postAction{
	{"Save post", "Save"}, {"Hide post", "Hide"}, {"Report post", "Report"},
	{"Copy link", "Copy the link to"}, {"Turn on notifications", "Turn on notifications for"}, {"Pin to profile", "Pin"},
}

// feedMenu: a social feed where every post has an icon-only "more"
// button opening a dropdown of actions (Bootstrap/Facebook style: an
// aria-label on some seeds, an SVG of three dots or an icon font).
func feedMenu(r *rand.Rand) spec {
	authors := pick(r, people, 3+r.Intn(3))
	k := r.Intn(len(authors))
	acts := make([]postAction, 0, 5)
	for _, i := range r.Perm(len(postActions))[:4+r.Intn(2)] {
		acts = append(acts, postActions[i])
	}
	want := acts[r.Intn(len(acts))]
	aria := r.Intn(2) == 0
	svg := r.Intn(2) == 0
	topics := pick(r, lorem, len(authors))
	var b strings.Builder
	b.WriteString(`<style>.post{border:1px solid #ddd;border-radius:6px;padding:8px 10px;margin:8px 0;position:relative}
.post header{font-weight:bold}.post time{color:#777;font-weight:normal;margin-left:6px}
.more{position:absolute;top:6px;right:6px;width:28px;height:28px;border:0;background:none;cursor:pointer;border-radius:50%}.more:hover{background:#eee}
.more svg{width:18px;height:18px}.icon-more-horiz::before{content:'\2026';font-size:18px}
.dropdown-menu{display:none;position:absolute;right:6px;top:34px;background:#fff;border:1px solid #ccc;box-shadow:0 2px 6px #0003;min-width:180px;z-index:3;padding:4px 0}
.dropdown-menu.show{display:block}.dropdown-item{display:block;padding:5px 12px;color:#222;text-decoration:none}.dropdown-item:hover{background:#f0f0f0}
.toast{position:fixed;bottom:10px;left:10px;background:#333;color:#fff;padding:8px 12px}</style><div id="feed">`)
	for i, a := range authors {
		label := ""
		if aria {
			label = ` aria-label="` + oneOf(r, "More options", "Actions for this post", "More") + `"`
		}
		icon := `<i class="icon-more-horiz"></i>`
		if svg {
			icon = `<svg viewBox="0 0 24 24"><circle cx="5" cy="12" r="2"/><circle cx="12" cy="12" r="2"/><circle cx="19" cy="12" r="2"/></svg>`
		}
		fmt.Fprintf(&b, `<article class="post" data-id="p%d"><header>%s<time>%dh</time></header><p>%s %s %s.</p>
<button type="button" class="more"%s>%s</button><div class="dropdown-menu">`, i, a, 1+r.Intn(23), title(topics[i]), strings.Join(pick(r, lorem, 8), " "), topics[i], label, icon)
		for _, x := range acts {
			fmt.Fprintf(&b, `<a class="dropdown-item" href="#">%s</a>`, x.item)
		}
		b.WriteString(`</div></article>`)
	}
	fmt.Fprintf(&b, `</div>
<script>
document.getElementById('feed').addEventListener('click', (e) => {
  const more = e.target.closest('.more');
  if (more) {
    const m = more.nextElementSibling, open = m.classList.contains('show');
    document.querySelectorAll('.dropdown-menu.show').forEach(x => x.classList.remove('show'));
    if (!open) m.classList.add('show');
    return;
  }
  const it = e.target.closest('.dropdown-item');
  if (!it) return;
  e.preventDefault();
  it.parentElement.classList.remove('show');
  const t = document.createElement('div'); t.className = 'toast'; t.textContent = it.textContent + ': done.'; document.body.appendChild(t);
  verdict(it.closest('.post').dataset.id === 'p%d' && it.textContent === %s);
});
</script>`, k, jsString(want.item))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"%[1]s the post by %[2]s.",
		"On %[2]s's post, open the menu and choose %[3]s.",
		"Use the more menu of the post from %[2]s to %[4]s it.",
		"%[1]s %[2]s's post about %[5]s.",
	}, want.verb, authors[k], want.item, strings.ToLower(want.verb), topics[k])
	post := fmt.Sprintf(`.post[data-id="p%d"]`, k)
	sp.solve = []step{click(post + " .more"), click(fmt.Sprintf(`%s .dropdown-item:text-is("%s")`, post, want.item))}
	wp := fmt.Sprintf(`.post[data-id="p%d"]`, (k+1)%len(authors))
	sp.wrong = []step{click(wp + " .more"), click(fmt.Sprintf(`%s .dropdown-item:text-is("%s")`, wp, want.item))}
	return sp
}

// subMenu is a submenu and its leaves.
type subMenu struct {
	name   string
	leaves []string
}

// menuTree is a menu bar: menus, their submenus and leaves.
var menuTree = []struct {
	menu string
	subs []subMenu
}{
	{"File", []subMenu{{"New", []string{"Document", "Spreadsheet", "Presentation"}}, {"Download", []string{"PDF", "Word", "Plain text", "EPUB"}},
		{"Export", []string{"PDF", "HTML", "Markdown"}}, {"Share", []string{"Copy link", "Email"}}}},
	{"Edit", []subMenu{{"Paste special", []string{"Values only", "Formatting only"}}, {"Select", []string{"All", "None", "Matching text"}}}},
	{"View", []subMenu{{"Zoom", []string{"50%", "100%", "200%"}}, {"Mode", []string{"Editing", "Viewing", "Suggesting"}}}},
	{"Insert", []subMenu{{"Image", []string{"Upload", "By URL", "From Drive"}}, {"Table", []string{"2 x 2", "3 x 3", "4 x 4"}}}},
	{"Format", []subMenu{{"Align", []string{"Left", "Center", "Right"}}, {"Text", []string{"Bold", "Italic", "Underline"}}, {"Spacing", []string{"Single", "Double"}}}},
}

// nestedMenu: choose a leaf of a menu bar's nested submenus (Google
// Docs style: a menu opens on click, a submenu on hover or click, items
// are divs; role=menuitem on some seeds), named as a path.
func nestedMenu(r *rand.Rand) spec {
	aria := r.Intn(2) == 0
	role := func(rl string) string {
		if aria {
			return ` role="` + rl + `"`
		}
		return ""
	}
	mi := r.Intn(len(menuTree))
	m := menuTree[mi]
	si := r.Intn(len(m.subs))
	leaf := m.subs[si].leaves[r.Intn(len(m.subs[si].leaves))]
	path := []string{m.menu, m.subs[si].name, leaf}
	var b strings.Builder
	b.WriteString(`<style>.menubar{display:flex;gap:2px;border-bottom:1px solid #ccc;padding:2px;user-select:none}
.mb{padding:4px 8px;cursor:default;position:relative}.mb:hover,.mb.open{background:#e8eaed;border-radius:3px}
.menu{display:none;position:absolute;top:100%;left:0;background:#fff;border:1px solid #ccc;box-shadow:0 2px 6px #0003;min-width:170px;padding:4px 0;z-index:4}
.mb.open>.menu{display:block}.mi{padding:5px 24px;position:relative;white-space:nowrap}.mi:hover,.mi.open{background:#eee}
.mi.sub::after{content:'\25B8';position:absolute;right:8px}.mi>.menu{top:-5px;left:100%}.mi.open>.menu{display:block}</style>`)
	fmt.Fprintf(&b, `<div class="menubar" id="mbar"%s>`, role("menubar"))
	// Leaves carry generated ids as such apps do (":1a"), nothing that
	// names their path.
	ids := map[string]string{}
	next := 16 + r.Intn(200)
	for _, x := range menuTree {
		fmt.Fprintf(&b, `<div class="mb"%s>%s<div class="menu"%s>`, role("menuitem"), x.menu, role("menu"))
		for _, s := range x.subs {
			fmt.Fprintf(&b, `<div class="mi sub"%s><span class="lbl">%s</span><div class="menu"%s>`, role("menuitem"), s.name, role("menu"))
			for _, l := range s.leaves {
				id := fmt.Sprintf(":%x", next)
				next += 1 + r.Intn(3)
				ids[x.menu+"/"+s.name+"/"+l] = id
				fmt.Fprintf(&b, `<div class="mi leaf"%s id="%s"><span class="lbl">%s</span></div>`, role("menuitem"), id, l)
			}
			b.WriteString(`</div></div>`)
		}
		b.WriteString(`</div></div>`)
	}
	fmt.Fprintf(&b, `</div><div style="border:1px solid #ccc;min-height:120px;padding:10px">%s</div>
<script>
const bar = document.getElementById('mbar');
function closeAll() { bar.querySelectorAll('.open').forEach(x => x.classList.remove('open')); }
bar.addEventListener('click', (e) => {
  const leaf = e.target.closest('.leaf');
  if (leaf) { closeAll(); verdict(leaf.id === %s); return; }
  const sub = e.target.closest('.mi.sub');
  if (sub) { openSub(sub); return; }
  const top = e.target.closest('.mb');
  if (top) { const o = top.classList.contains('open'); closeAll(); if (!o) top.classList.add('open'); }
});
function openSub(sub) { for (const s of sub.parentElement.children) if (s !== sub) s.classList.remove('open'); sub.classList.add('open'); }
bar.addEventListener('mouseover', (e) => {
  const sub = e.target.closest('.mi.sub');
  if (sub && sub.closest('.mb.open')) openSub(sub);
  const top = e.target.closest('.mb');
  if (top && !top.classList.contains('open') && bar.querySelector('.mb.open')) { closeAll(); top.classList.add('open'); }
});
document.addEventListener('click', (e) => { if (!bar.contains(e.target)) closeAll(); });
</script>`, strings.Join(pick(r, lorem, 20), " "), jsString(ids[strings.Join(path, "/")]))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"Choose %[1]s > %[2]s > %[3]s.",
		"In the %[1]s menu, open %[2]s and pick %[3]s.",
		"Click %[3]s under %[1]s, %[2]s.",
		"Use %[1]s → %[2]s → %[3]s from the menu bar.",
	}, path[0], path[1], path[2])
	top := fmt.Sprintf(`.mb:nth-child(%d)`, mi+1)
	subSel := fmt.Sprintf(`%s > .menu > .mi.sub:nth-child(%d)`, top, si+1)
	sp.solve = []step{click(top), hover(subSel), click(fmt.Sprintf(`[id="%s"]`, ids[strings.Join(path, "/")]))}
	// The same leaf name under another submenu (or another leaf).
	oi := (si + 1) % len(m.subs)
	sp.wrong = []step{click(top), hover(fmt.Sprintf(`%s > .menu > .mi.sub:nth-child(%d)`, top, oi+1)),
		click(fmt.Sprintf(`[id="%s"]`, ids[m.menu+"/"+m.subs[oi].name+"/"+m.subs[oi].leaves[0]]))}
	return sp
}

// scriptedLinks: a discussion thread whose comment actions are links
// with href="#" and one delegated click handler (jQuery's
// $(document).on('click', 'a.js-like', ...)); some replies are folded
// behind a "show more" link of the same kind.
func scriptedLinks(r *rand.Rand) spec {
	authors := pick(r, people, 4+r.Intn(3))
	acts := []string{"Like", "Quote", "Report", "Share"}
	fold := 2 + r.Intn(len(authors)-2) // comments from here on are folded
	if r.Intn(2) == 0 {
		fold = len(authors)
	}
	k := r.Intn(len(authors))
	act := acts[r.Intn(len(acts))]
	var b strings.Builder
	b.WriteString(`<style>.cmt{border-bottom:1px solid #eee;padding:6px 0}.cmt .who{font-weight:bold}.cmt .acts a{margin-right:10px;font-size:13px;color:#36c}
.folded{display:none}</style><div id="thread">`)
	for i, a := range authors {
		if i == fold {
			fmt.Fprintf(&b, `<a href="#" class="js-more">%s</a><div class="folded">`, oneOf(r, fmt.Sprintf("Show %d more replies", len(authors)-fold), "Load more comments", "View more replies"))
		}
		fmt.Fprintf(&b, `<div class="cmt" data-id="c%d"><div class="who">%s</div><p>%s.</p><div class="acts">`, i, a, strings.Join(pick(r, lorem, 9), " "))
		for _, x := range acts {
			fmt.Fprintf(&b, `<a href="#" class="js-%s">%s</a>`, strings.ToLower(x), x)
		}
		b.WriteString(`</div></div>`)
	}
	if fold < len(authors) {
		b.WriteString(`</div>`)
	}
	fmt.Fprintf(&b, `</div>
<script>
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[href="#"]');
  if (!a) return;
  e.preventDefault();
  if (a.classList.contains('js-more')) { a.nextElementSibling.classList.remove('folded'); a.remove(); return; }
  const c = a.closest('.cmt');
  if (!c) return;
  a.textContent = a.textContent + ' \u2713';
  verdict(c.dataset.id === 'c%d' && a.classList.contains(%s));
});
</script>`, k, jsString("js-"+strings.ToLower(act)))
	sp := spec{body: b.String()}
	sp.phrase(r, []string{
		"%[2]s the comment by %[1]s.",
		"Click %[2]s under %[1]s's comment.",
		"On the comment from %[1]s, click the %[3]s link.",
	}, authors[k], act, strings.ToLower(act))
	c := fmt.Sprintf(`.cmt[data-id="c%d"]`, k)
	if k >= fold {
		sp.solve = []step{click(".js-more")}
	}
	sp.solve = append(sp.solve, click(c+" .js-"+strings.ToLower(act)))
	other := acts[(indexOf(acts, act)+1)%len(acts)]
	w := fmt.Sprintf(`.cmt[data-id="c0"] .js-%s`, strings.ToLower(other))
	sp.wrong = []step{click(w)}
	return sp
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}
