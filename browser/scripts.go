package browser

import "fmt"

// determinismScript pins the sources of randomness a page can reach. It is
// installed after the Playwright clock, so its performance.now wins. The
// PRNG is seeded per document from the run seed and the document path, so a
// document's random stream depends only on what the branch did to reach it.
//
// It must not read the clock while it runs: in a new document the
// Playwright clock restores its paused state only after init scripts ran,
// and an early Date.now() makes it drift. performance.now therefore counts
// from the session's clock origin, read lazily.
func determinismScript(runSeed uint64, clockOrigin int64) string {
	return fmt.Sprintf(`(() => {
  const base = %d >>> 0, base2 = %d >>> 0;
  let h = 2166136261 ^ base;
  // The path only: queries can carry personal data (replays see tokens
  // there) and the origin changes with the address a site is served at.
  const href = String(location.pathname);
  for (let i = 0; i < href.length; i++) { h ^= href.charCodeAt(i); h = Math.imul(h, 16777619); }
  let s = (h ^ base2) | 0;
  const next = () => {
    s = (s + 0x6D2B79F5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const def = (obj, name, fn) => { try { Object.defineProperty(obj, name, { value: fn, configurable: true, writable: true }); } catch (e) {} };
  def(Math, 'random', next);
  if (typeof crypto !== 'undefined') {
    def(crypto, 'getRandomValues', (arr) => {
      const bytes = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
      return arr;
    });
    def(crypto, 'randomUUID', () => {
      const b = new Uint8Array(16);
      for (let i = 0; i < 16; i++) b[i] = Math.floor(next() * 256);
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const x = Array.from(b, v => v.toString(16).padStart(2, '0')).join('');
      return x.slice(0, 8) + '-' + x.slice(8, 12) + '-' + x.slice(12, 16) + '-' + x.slice(16, 20) + '-' + x.slice(20);
    });
  }
  const origin = %d;
  if (typeof performance !== 'undefined') {
    def(performance, 'now', () => Date.now() - origin);
    try { Object.defineProperty(performance, 'timeOrigin', { value: origin, configurable: true }); } catch (e) {}
  }
})();`, uint32(runSeed), uint32(runSeed>>32), clockOrigin)
}

// listenerScript marks elements that get a click-like listener, so an
// observation can tell a clickable <div> from a plain one, and those that
// get a mouse-enter listener (a menu that opens on hover). The mark is a
// symbol-keyed property: invisible to the DOM, its serialization and the
// page's own enumeration.
const listenerScript = `(() => {
  const CLICK = Symbol.for('multiverse.click'), HOVER = Symbol.for('multiverse.hover');
  const kinds = new Set(['click', 'dblclick', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'touchstart']);
  const hovers = new Set(['mouseenter', 'mouseover', 'pointerenter', 'pointerover']);
  const markAs = (el, sym) => { try { Object.defineProperty(el, sym, { value: true, configurable: true }); } catch (e) {} };
  const mark = (el) => markAs(el, CLICK);
  const add = EventTarget.prototype.addEventListener;
  Object.defineProperty(EventTarget.prototype, 'addEventListener', { configurable: true, writable: true,
    value: function (type, fn, opts) {
      if (kinds.has(type) && typeof Element !== 'undefined' && this instanceof Element) mark(this);
      if (hovers.has(type) && typeof Element !== 'undefined' && this instanceof Element) markAs(this, HOVER);
      return add.call(this, type, fn, opts);
    } });
  const d = typeof HTMLElement !== 'undefined' && Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'onclick');
  if (d && d.set) {
    Object.defineProperty(HTMLElement.prototype, 'onclick', { configurable: true, enumerable: d.enumerable, get: d.get,
      set: function (v) { if (v) mark(this); d.set.call(this, v); } });
  }
})();`

// observeScript runs in the page and returns everything an observation
// needs in one round trip: the canonical DOM, affordances, probe answers
// and, when asked, the page text. Its argument is
// {probes: [{kind, selector, script}], text: bool, max: int, volatile: [..]}.
const observeScript = `(arg) => {
  const norm = (s) => String(s == null ? '' : s).replace(/\s+/g, ' ').trim();
  const volatile = new Set(arg.volatile || []);
  // Canonical DOM: elements with sorted attributes, live form state as
  // pseudo-attributes, collapsed text, no comments.
  const out = [];
  const ser = (node) => {
    if (node.nodeType === 3) { const t = norm(node.nodeValue); if (t) out.push(JSON.stringify(t)); return; }
    if (node.nodeType !== 1) return;
    const tag = node.localName;
    const attrs = [];
    for (const a of node.attributes) if (!volatile.has(a.name)) attrs.push([a.name, a.value]);
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      attrs.push(['::value', String(node.value)]);
      if (node.type === 'checkbox' || node.type === 'radio') attrs.push(['::checked', String(node.checked)]);
    }
    if (tag === 'details' || tag === 'dialog') attrs.push(['::open', String(node.open)]);
    if (revealers.has(node) && node.matches(':hover')) attrs.push(['::hover', 'true']);
    attrs.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
    out.push('<' + tag + attrs.map(([k, v]) => ' ' + k + '=' + JSON.stringify(v)).join('') + '>');
    if (tag !== 'template') for (const c of node.childNodes) ser(c);
    if (node.shadowRoot) { out.push('<#shadow>'); for (const c of node.shadowRoot.childNodes) ser(c); out.push('</#shadow>'); }
    out.push('</' + tag + '>');
  };
  // Styles and boxes are read once per element: the script changes
  // nothing, so they hold for the whole observation.
  const styles = new Map(), boxes = new Map();
  const styleOf = (e) => { let st = styles.get(e); if (!st) { st = getComputedStyle(e); styles.set(e, st); } return st; };
  const boxOf = (e) => { let r = boxes.get(e); if (!r) { r = e.getBoundingClientRect(); boxes.set(e, r); } return r; };
  const parentOf = (e) => e.parentElement || (e.parentNode && e.parentNode.host) || null;
  // offPage: no scrolling brings the box into view. It lies left of or
  // above the document's origin (a flyout parked at left:-9999em until
  // its menu opens, a closed off-canvas drawer), an ancestor whose
  // overflow hides what it does not show cuts it to nothing, or it lies
  // before the start of a scroll container. What is below the fold of
  // the page or of a scroll container can be scrolled to: it is not off.
  const offPage = (el, r) => {
    const doc = el.ownerDocument, win = doc.defaultView || window;
    const rtl = styleOf(doc.documentElement).direction === 'rtl';
    let l = r.left, t = r.top, rr = r.right, b = r.bottom;
    let pos = styleOf(el).position;
    for (let a = parentOf(el); a && a !== doc.body && a !== doc.documentElement; a = parentOf(a)) {
      const st = styleOf(a);
      // Only the chain of containing blocks clips: an absolutely placed
      // box escapes static ancestors, a fixed one every ancestor.
      if (pos === 'fixed' && st.transform === 'none') continue;
      if (pos === 'absolute' && st.position === 'static' && st.transform === 'none') continue;
      pos = st.position;
      const ox = st.overflowX, oy = st.overflowY;
      if ((ox === 'visible' && oy === 'visible') || st.display === 'inline' || st.display === 'contents') continue;
      const ar = boxOf(a), al = ar.left + a.clientLeft, at = ar.top + a.clientTop, aw = a.clientWidth, ah = a.clientHeight;
      if (ox === 'hidden' || ox === 'clip') { l = Math.max(l, al); rr = Math.min(rr, al + aw); }
      else if (ox !== 'visible') {
        if (!rtl && rr <= al - a.scrollLeft) return true;
        // Reachable by scrolling this container: seen from further out,
        // it stands where the scroll brings it, inside the container.
        if (!rtl && (rr <= al || l >= al + aw)) { const w = Math.min(rr - l, aw); l = al; rr = al + w; }
      }
      if (oy === 'hidden' || oy === 'clip') { t = Math.max(t, at); b = Math.min(b, at + ah); }
      else if (oy !== 'visible') {
        if (b <= at - a.scrollTop) return true;
        if (b <= at || t >= at + ah) { const h = Math.min(b - t, ah); t = at; b = at + h; }
      }
      if (rr <= l || b <= t) return true;
    }
    return (!rtl && rr + win.scrollX <= 0) || b + win.scrollY <= 0;
  };
  const visible = (el) => {
    if (!el.isConnected) return false;
    const r = boxOf(el);
    if (r.width <= 0 || r.height <= 0) return false;
    if (r.width <= 1 && r.height <= 1) return false; // a box for screen readers only
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const st = styleOf(el);
    return st.visibility !== 'hidden' && st.display !== 'none' && !offPage(el, r);
  };
  const implicitRole = (el) => {
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'a' && el.hasAttribute('href')) return 'link';
    if (tag === 'button') return 'button';
    if (tag === 'select') return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox') return 'checkbox';
      if (type === 'radio') return 'radio';
      if (type === 'number') return 'spinbutton';
      if (type === 'search') return 'searchbox';
      if (type === 'range') return 'slider';
      if (['', 'text', 'email', 'tel', 'url', 'password'].includes(type)) return 'textbox';
    }
    if (tag === 'summary') return 'button';
    return '';
  };
  // Elements live in the document, in open shadow roots and in
  // same-origin iframes: lookups use the element's own root.
  const rootOf = (el) => el.getRootNode ? el.getRootNode() : document;
  const byId = (el, id) => { const r = rootOf(el); return r.getElementById ? r.getElementById(id) : document.getElementById(id); };
  const labelText = (el) => {
    const lb = el.getAttribute('aria-labelledby');
    if (lb) return norm(lb.split(/\s+/).map(id => { const x = byId(el, id); return x ? x.innerText || x.textContent : ''; }).join(' '));
    if (el.labels && el.labels.length) return norm(Array.from(el.labels, l => l.querySelector('select,textarea') ? textBut(l, el) : l.innerText || l.textContent).join(' '));
    return '';
  };
  // textBut is the text of a label without the control it wraps (a
  // select's options are not its name).
  const textBut = (node, skip) => {
    if (node === skip) return '';
    if (node.nodeType === 3) return node.nodeValue;
    if (node.nodeType !== 1 || ['select', 'textarea', 'script', 'style'].includes(node.localName)) return '';
    return Array.from(node.childNodes, c => textBut(c, skip)).join(' ');
  };
  const accName = (el, generic) => {
    const al = el.getAttribute('aria-label');
    if (al && norm(al)) return norm(al);
    const lt = labelText(el);
    if (lt) return lt;
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'input' && ['submit', 'button', 'reset'].includes(type)) return norm(el.value || (type === 'submit' ? 'Submit' : ''));
    if (!el.isContentEditable && (generic || tag === 'a' || tag === 'button' || tag === 'summary' || el.getAttribute('role'))) {
      const t = norm(el.innerText || el.textContent);
      if (t) return t.slice(0, 120);
      const img = el.querySelector('img[alt]');
      if (img) return norm(img.getAttribute('alt'));
    }
    return norm(el.getAttribute('title') || el.getAttribute('placeholder') || '');
  };
  // Hints name what the page leaves unnamed (see branch.Target.Hint):
  // never a locator, only words for the planner to match.
  const hintData = arg.hint || { noise: [], attrs: [], skip: [] };
  const noise = new Set(hintData.noise);
  const hintAttrs = ['title', 'alt', 'aria-label'].concat(hintData.attrs);
  // idWords splits an identifier into its words (camelCase, kebab,
  // snake, digits apart) without the words that say nothing.
  const idWords = (s) => String(s || '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
    .split(/[^a-z]+/).filter(w => w.length > 1 && !noise.has(w));
  // A class a framework stamps on everything or builds from a hash.
  const hashedClass = (c) => hintData.skip.some(p => c.startsWith(p)) || /[A-Z]{2}/.test(c) || /[0-9].*[0-9]/.test(c);
  // fileWords: an icon's file name, or the fragment that picks it from a
  // sprite ("sprite.svg#trash", "#icon-more").
  const fileWords = (u) => {
    u = String(u || '').trim();
    if (!u || /^data:/i.test(u)) return [];
    const f = u.indexOf('#');
    if (f >= 0) return idWords(u.slice(f + 1));
    const m = /([^\/?]+?)(?:\.[a-z0-9]{2,5})?(?:\?.*)?$/i.exec(u);
    return m ? idWords(m[1]) : [];
  };
  const urlIn = (css) => { const m = css && css !== 'none' && /url\(\s*["']?([^"')]+)/.exec(css); return m ? m[1] : ''; };
  // iconHint names an icon-only control: a tooltip or alternative text
  // on it or its icon, else the words of their classes and ids, the
  // icon's name (data-icon) and its file name (img src, CSS background
  // or mask image, svg use reference).
  const iconHint = (el) => {
    const nodes = [el];
    for (const d of el.querySelectorAll('*')) { if (nodes.length >= 12) break; nodes.push(d); }
    for (const n of nodes) {
      for (const at of hintAttrs) { const v = norm(n.getAttribute(at)); if (v) return v.slice(0, 80); }
      if (n.localName === 'title' && norm(n.textContent)) return norm(n.textContent).slice(0, 80);
    }
    const words = [];
    const add = (ws) => { for (const w of ws) if (words.length < 4 && !words.includes(w)) words.push(w); };
    for (const n of nodes) {
      add(idWords(n.id));
      for (const c of Array.from(n.classList || [])) if (!hashedClass(c)) add(idWords(c));
      add(idWords(n.getAttribute('data-icon')));
      if (n.localName === 'img') add(fileWords(n.getAttribute('src')));
      if (n.localName === 'use') add(fileWords(n.getAttribute('href') || n.getAttribute('xlink:href')));
      const st = styleOf(n);
      for (const img of [st.backgroundImage, st.webkitMaskImage, st.maskImage]) add(fileWords(urlIn(img)));
    }
    return words.join(' ');
  };
  // neighbourLabel names a field that has no label of its own by the
  // nearest label-like text before it: in its row ("<span>Departure</span>
  // <input>"), the cell before it or its column's header, the term of a
  // definition list, a bold text just before it; a checkbox or radio by
  // the text right after it first. Another control in between ends the
  // search: that text is the other control's.
  const labelish = (t) => t.length > 0 && t.length <= 40 && t.split(' ').length <= 6;
  const asLabel = (t) => norm(t).replace(/[\s:\uFF1A*]+$/, '');
  const textOfSibling = (s) => {
    if (s.nodeType === 3) return norm(s.nodeValue);
    if (s.nodeType !== 1 || ['script', 'style', 'template', 'br'].includes(s.localName) || !s.getClientRects().length) return '';
    if (s.matches(widgetSel) || s.querySelector(widgetSel)) return null;
    return norm(s.innerText);
  };
  const cellHeader = (cell) => {
    const table = cell.closest('table');
    const row = table && ((table.tHead && table.tHead.rows[0]) || table.rows[0]);
    if (!row || row === cell.parentElement || !row.querySelector('th')) return '';
    const h = row.cells[cell.cellIndex];
    const t = h ? asLabel(h.innerText) : '';
    return labelish(t) ? t : '';
  };
  const neighbourLabel = (el, after) => {
    if (after) {
      for (let s = el.nextSibling, k = 0; s && k < 3; s = s.nextSibling, k++) {
        const t = textOfSibling(s);
        if (t === null) break;
        if (t) { const l = asLabel(t); if (labelish(l)) return l; break; }
      }
    }
    const body = el.ownerDocument.body;
    for (let e = el, depth = 0; e && e !== body && depth < 4; e = e.parentElement, depth++) {
      // The text before e at its level: a label, '' for none, null when
      // another control or a long text comes first.
      let before = '';
      for (let s = e.previousSibling, k = 0; s && k < 6; s = s.previousSibling, k++) {
        const t = textOfSibling(s);
        if (t === null) { before = null; break; }
        if (!t) continue;
        const l = asLabel(t);
        before = labelish(l) ? l : null;
        break;
      }
      // A cell is named by the cell before it in its row and by its
      // column's header.
      if (e.localName === 'td' || e.localName === 'th') return [before, cellHeader(e)].filter(Boolean).join(' ');
      if (before !== '') return before || '';
      const p = e.parentElement;
      if (!p || ['form', 'fieldset', 'table', 'body'].includes(p.localName)) return '';
    }
    return '';
  };
  const cssPath = (el) => {
    const root = rootOf(el);
    const all = (s) => root.querySelectorAll(s);
    if (el.id && all('#' + CSS.escape(el.id)).length === 1) return '#' + CSS.escape(el.id);
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== e.ownerDocument.documentElement; e = e.parentElement) {
      const tid = e.getAttribute('data-testid');
      if (tid && all('[data-testid="' + CSS.escape(tid) + '"]').length === 1) { parts.unshift('[data-testid="' + tid + '"]'); break; }
      if (e.id && e !== el && all('#' + CSS.escape(e.id)).length === 1) { parts.unshift('#' + CSS.escape(e.id)); break; }
      let i = 1;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === e.localName) i++;
      parts.unshift(e.localName + ':nth-of-type(' + i + ')');
    }
    return parts.join(' > ');
  };
  const region = (el) => {
    const r = el.closest('dialog,[role=dialog],[role=alertdialog],[aria-modal=true],header,nav,main,footer,aside,form,[role=navigation],[role=banner],[role=contentinfo],[role=main]');
    if (!r) return '';
    const role = r.getAttribute('role');
    if (r.localName === 'dialog' || role === 'dialog' || role === 'alertdialog' || r.getAttribute('aria-modal') === 'true') return 'dialog';
    if (role === 'navigation') return 'nav';
    if (role === 'banner') return 'header';
    if (role === 'contentinfo') return 'footer';
    if (role === 'main') return 'main';
    return r.localName;
  };
  // near is the neighbourhood a person reads with the element: the
  // fieldset's legend or the card's heading, then the text of the
  // paragraph, item or cell around it, else the text just before it.
  const near = (el) => {
    const parts = [];
    const fs = el.closest('fieldset');
    const lg = fs && fs.querySelector('legend');
    const card = el.closest('[data-testid],section,article,li,form');
    const h = card && card.querySelector('h1,h2,h3,h4');
    if (lg) parts.push(norm(lg.innerText).slice(0, 60));
    else if (h) parts.push(norm(h.innerText).slice(0, 60));
    let block = el.parentElement && el.parentElement.closest('p,li,td,th,dd,dt,label,[role=row],[role=listitem],[role=cell],[role=gridcell]');
    // A cell is read with its row: the button in the last column belongs
    // to the name in the first.
    if (block && block.matches('td,th,[role=cell],[role=gridcell]')) block = block.closest('tr,[role=row]') || block;
    // A row's text reaches its date and status columns.
    let t = block ? norm(block.innerText).slice(0, 160) : '';
    for (let s = el.previousSibling; !t && s; s = s.previousSibling) {
      // Another control is not the text a person reads with this one.
      if (s.nodeType === 1 && (s.matches(widgetSel) || s.querySelector(widgetSel))) break;
      t = norm(s.nodeType === 3 ? s.nodeValue : s.nodeType === 1 ? s.innerText : '').slice(-60);
    }
    // An icon-only control whose neighbourhood says no word (a stepper's
    // plus beside its count) is read with the small row around it
    // ("Adults - 2 +"); a control with words of its own is not (a tab is
    // not read with its siblings).
    const mute = !norm(el.innerText || el.value || '') && !el.getAttribute('aria-label');
    for (let a = el.parentElement, up = 0; mute && !/\p{L}{2}/u.test(t) && a && up < 3 && a !== document.body; a = a.parentElement, up++) {
      const at = norm(a.innerText);
      if (at.length <= 80 && /\p{L}{2}/u.test(at)) t = at;
    }
    if (t && t !== parts[0]) parts.push(t);
    const path = menuPath(el);
    if (path) parts.unshift(path);
    return parts.join(' · ');
  };
  // menuPath names the menus an element of a nested list sits in, outer
  // first ("Users > Posts"): the label of each list item that holds the
  // element's own list, without the lists it holds. A side menu's "Add
  // New" under "Users" is told from the one under "Posts" so.
  const subSel = 'ul,ol,[role=menu],[role=group],[role=tree],[role=listbox]';
  const leadText = (li) => {
    let out = '';
    for (const c of li.childNodes) {
      if (c.nodeType === 3) out += ' ' + c.nodeValue;
      else if (c.nodeType === 1 && !c.matches(subSel) && !c.querySelector(subSel)) out += ' ' + (c.innerText || c.textContent || '');
    }
    return norm(out).slice(0, 40);
  };
  const menuPath = (el) => {
    const own = el.closest('li,[role=menuitem],[role=treeitem]');
    const names = [];
    for (let li = own && own.parentElement && own.parentElement.closest('li,[role=menuitem],[role=treeitem]'); li && names.length < 3;
      li = li.parentElement && li.parentElement.closest('li,[role=menuitem],[role=treeitem]')) {
      const n = leadText(li);
      if (n) names.unshift(n);
    }
    return names.join(' > ');
  };
  // An open modal dialog hides everything outside it, on screen or not.
  const modal = Array.from(document.querySelectorAll('[aria-modal="true"],dialog[open]')).find(visible);
  const within = (outer, el) => {
    for (let e = el; e; e = e.parentNode || e.host || (e.defaultView && e.defaultView.frameElement) || null) if (e === outer) return true;
    return false;
  };
  const obscured = (el, ctx) => {
    if (modal && !within(modal, el)) return true;
    // A link that wraps to two lines is hit on its first line (where a
    // click lands), not at the middle of its box, between the lines.
    const rects = el.getClientRects();
    const r = rects.length ? rects[0] : el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= ctx.win.innerWidth || y >= ctx.win.innerHeight) return false;
    const root = rootOf(el);
    let top = (root.elementFromPoint ? root : ctx.doc).elementFromPoint(x, y);
    while (top && top.shadowRoot && top !== el && !top.contains(el)) { const inner = top.shadowRoot.elementFromPoint(x, y); if (!inner || inner === top) break; top = inner; }
    return !!top && top !== el && !el.contains(top) && !within(el, top) && !(el.labels && Array.from(el.labels).some(l => l.contains(top)));
  };
  // What a person can interact with: native controls, ARIA widget roles,
  // contenteditable regions, and elements with a click handler, a
  // pointer cursor or a tab stop.
  const CLICK = Symbol.for('multiverse.click');
  const native = 'a[href],button,input:not([type=hidden]),select,textarea,summary';
  const widgetRoles = ['link', 'button', 'tab', 'treeitem', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option',
    'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'textbox', 'searchbox', 'spinbutton', 'slider'];
  const widgetSel = native + ',' + widgetRoles.map(r => '[role=' + r + ']').join(',') + ',[contenteditable=""],[contenteditable=true]';
  const roleOf = (el) => (el.getAttribute('role') || '').trim().split(/\s+/)[0];
  // A probe of one point (playback's coordinate fallback and its check
  // of a healed match): the control at (x, y) with its css path,
  // neighbourhood and box; nothing else is computed.
  if (arg.at) {
    let el = document.elementFromPoint(arg.at.x, arg.at.y);
    while (el && el.shadowRoot) { const inner = el.shadowRoot.elementFromPoint(arg.at.x, arg.at.y); if (!inner || inner === el) break; el = inner; }
    // The control there: a widget around the point, else an element
    // with a click handler, a tab stop or a pointer cursor; any element
    // when the caller checks a match it already has.
    let ctl = el && el.closest(widgetSel);
    for (let e = el; !ctl && e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
      const ti = e.getAttribute('tabindex');
      if (e.hasAttribute('onclick') || e[CLICK] === true || (ti !== null && ti !== '' && Number(ti) >= 0) || getComputedStyle(e).cursor === 'pointer') ctl = e;
    }
    if (!ctl && arg.at.any) ctl = el;
    if (!ctl || ctl === document.body || ctl === document.documentElement) return { at: null };
    const r = ctl.getBoundingClientRect();
    return { at: { css: cssPath(ctl), near: near(ctl), name: accName(ctl, true), box: { x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height } } };
  }
  // Hover menus: elements that a :hover style rule or a mouse-enter
  // listener opens and that hold controls hidden until then. The one
  // the pointer rests on is part of the page's state.
  const HOVER = Symbol.for('multiverse.hover');
  const hoverSels = new Set();
  const walkRules = (rules) => {
    for (const r of rules) {
      if (r.selectorText) for (const part of r.selectorText.split(',')) {
        const i = part.indexOf(':hover');
        const base = i > 0 ? part.slice(0, i).trim() : '';
        if (base && !/[\s>+~(]$/.test(base)) hoverSels.add(base);
      }
      if (r.cssRules) walkRules(r.cssRules);
    }
  };
  for (const sh of document.styleSheets) { try { walkRules(sh.cssRules); } catch (e) {} }
  const hoverCands = new Set();
  for (const sel of hoverSels) { try { for (const el of document.querySelectorAll(sel)) if (hoverCands.size < 400) hoverCands.add(el); } catch (e) {} }
  for (const el of document.querySelectorAll('*')) if (el[HOVER] === true && hoverCands.size < 400) hoverCands.add(el);
  const hiddenWidgets = (el) => Array.from(el.querySelectorAll(widgetSel)).filter(x => !visible(x));
  const revealers = new Map(); // element -> the hidden controls it holds, or [] while it is open
  for (const el of hoverCands) {
    const hidden = hiddenWidgets(el);
    if (hidden.length || el.matches(':hover') && el.querySelector(widgetSel)) revealers.set(el, hidden);
  }
  if (document.documentElement) ser(document.documentElement);
  const how = (el, ctx, inside) => {
    if (el === ctx.doc.body || el === ctx.doc.documentElement) return '';
    if (el.matches(native)) return 'native';
    if (widgetRoles.includes(roleOf(el))) return 'role';
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'editable';
    // Generic clickables count once: not inside another affordance,
    // not around a real control.
    if (inside) return '';
    let generic = el.hasAttribute('onclick') || el[CLICK] === true;
    const ti = el.getAttribute('tabindex');
    if (!generic && ti !== null && ti !== '' && Number(ti) >= 0) generic = true;
    if (!generic && styleOf(el).cursor === 'pointer') generic = !(el.parentElement && styleOf(el.parentElement).cursor === 'pointer');
    if (!generic || el.querySelector(widgetSel)) return '';
    return 'generic';
  };
  // Items of a composite widget: one listener on a toolbar, a suggestion
  // list, a tree or a table serves many items a person tells apart.
  // Items are the elements inside that say they are clickable on their
  // own (a click handler, their own pointer cursor, a tab stop; data
  // attributes when several of one tag have them), else the children of
  // a parent all of whose children that say something look alike (one
  // tag, a shared class), and inside an item the children of its tag (a
  // tree's nested items). Table cells are parts of a row, not items.
  // An element's children, read through the prototype: a form's
  // "children" is its control of that name (an input name=children).
  const childrenOf = Object.getOwnPropertyDescriptor(Element.prototype, 'children').get;
  const kidsOf = (e) => Array.from(childrenOf.call(e));
  const pointerOwn = (e) => styleOf(e).cursor === 'pointer' && !(e.parentElement && styleOf(e.parentElement).cursor === 'pointer');
  const ownClick = (e) => {
    const ti = e.getAttribute('tabindex');
    return e.hasAttribute('onclick') || e[CLICK] === true || (ti !== null && ti !== '' && Number(ti) >= 0) || pointerOwn(e);
  };
  // Data attributes frameworks and test suites put on everything.
  const stampData = /^data-(v-|react|styled|emotion|testid|test-|cy|qa|s-)/;
  const dataMark = (e) => { for (const a of e.attributes) if (a.name.startsWith('data-') && !stampData.test(a.name)) return true; return false; };
  const says = (e) => !!(norm(e.textContent) || e.getAttribute('title') || e.getAttribute('aria-label'));
  const alike = (a, b) => a.localName === b.localName && (!a.classList.length || !b.classList.length || Array.from(a.classList).some(c => b.classList.contains(c)));
  const notItems = ['td', 'th', 'b', 'strong', 'em', 'mark', 'small', 'sup', 'sub', 'abbr', 'code', 'kbd', 'br', 'script', 'style', 'template'];
  const maxItems = 50;
  const itemsOf = (c) => {
    const all = [];
    for (const e of c.querySelectorAll('*')) { if (all.length >= 300) break; all.push(e); }
    const marked = new Set(all.filter(ownClick));
    const byTag = new Map();
    for (const e of all) if (!marked.has(e) && dataMark(e)) byTag.set(e.localName, (byTag.get(e.localName) || []).concat([e]));
    for (const es of byTag.values()) if (es.length >= 2) for (const e of es) marked.add(e);
    let set = marked;
    if (marked.size < 2) {
      set = new Set();
      const itemAbove = (p) => { for (let a = p; a && a !== c; a = a.parentElement) if (set.has(a)) return a; return null; };
      for (const p of [c].concat(all)) {
        const kids = kidsOf(p).filter(says);
        if (!kids.length || notItems.includes(kids[0].localName) || !kids.every(k => alike(k, kids[0]))) continue;
        const up = itemAbove(p);
        if (up ? up.localName !== kids[0].localName : kids.length < 2) continue;
        for (const k of kids) set.add(k);
      }
    }
    if (set.size < 2) return null;
    // Hidden items are never offered: the bound counts the ones shown (a
    // menu bar's last menu, open, after the closed ones).
    let items = all.filter(e => set.has(e) && visible(e)).slice(0, maxItems);
    // The container keeps its place when its items leave much of its
    // text unsaid (a card with two buttons).
    const holders = new Set();
    let said = 0;
    for (const it of items) {
      let top = true;
      for (let a = it.parentElement; a && a !== c; a = a.parentElement) if (set.has(a)) { holders.add(a); top = false; }
      if (top) said += norm(it.textContent).length;
    }
    // An item that holds items (a tree's folder) is clicked on its own
    // label: the first element inside with text of its own, outside the
    // items it holds. One whose text is bare is named by that text and
    // offered only when its centre, where a click lands, is not over an
    // item it holds.
    const bare = (n) => Array.from(n.childNodes).some(x => x.nodeType === 3 && norm(x.nodeValue));
    const swap = new Map(), named = new Set();
    for (const h of holders) {
      if (!bare(h)) {
        let label = null;
        const walk = (n) => { for (const k of kidsOf(n)) { if (label) return; if (set.has(k)) continue; if (bare(k)) { label = k; return; } walk(k); } };
        walk(h);
        swap.set(h, label);
        continue;
      }
      const r = boxOf(h), x = r.left + r.width / 2, y = r.top + r.height / 2;
      const over = kidsOf(h).some(k => (set.has(k) || items.some(it => k.contains(it))) && (() => { const b = boxOf(k); return x >= b.left && x <= b.right && y >= b.top && y <= b.bottom; })());
      if (over) swap.set(h, null); else named.add(h);
    }
    items = items.map(it => swap.has(it) ? swap.get(it) : it).filter(Boolean);
    // Lookalike items (an Edit in every row) are told apart by their
    // place: their text would name several elements.
    const count = new Map();
    for (const it of items) { const k = norm(it.textContent); count.set(k, (count.get(k) || 0) + 1); }
    const lookalike = new Set(items.filter(it => count.get(norm(it.textContent)) > 1));
    return { items, set, holders: named, lookalike, keep: said < 0.7 * norm(c.textContent).length };
  };
  // ownText is an item's text without the items it holds.
  const ownText = (node, set) => Array.from(node.childNodes, n => n.nodeType === 3 ? n.nodeValue :
    n.nodeType === 1 && !set.has(n) && !['script', 'style'].includes(n.localName) ? ownText(n, set) : '').join(' ');
  const found = [];
  const max = arg.max || 120;
  const visit = (el, ctx, inside) => {
    if (found.length >= 8 * max) return;
    const h = how(el, ctx, inside);
    const group = h === 'generic' ? itemsOf(el) : null;
    if (h && (!group || group.keep)) found.push({ el, ctx, how: h });
    if (group) for (const it of group.items) found.push({ el: it, ctx, how: 'item', group });
    const inner = inside || !!h;
    if (el.shadowRoot) {
      const sctx = Object.assign({}, ctx, { css: ctx.css + cssPath(el) + ' >> ' });
      for (const c of el.shadowRoot.children) visit(c, sctx, inner);
    }
    if (el.localName === 'iframe' || el.localName === 'frame') {
      let d = null;
      try { d = el.contentDocument; } catch (e) { d = null; }
      if (d && d.documentElement && visible(el)) {
        const r = el.getBoundingClientRect();
        visit(d.documentElement, { doc: d, win: d.defaultView, frame: true, x: ctx.x + r.left + el.clientLeft, y: ctx.y + r.top + el.clientTop,
          css: ctx.css + cssPath(el) + ' >> internal:control=enter-frame >> ' }, false);
      }
    }
    for (const c of kidsOf(el)) visit(c, ctx, inner);
  };
  if (document.documentElement) visit(document.documentElement, { doc: document, win: window, frame: false, x: 0, y: 0, css: '' }, false);
  const kindOf = (el, role, h) => {
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    if (tag === 'select') return 'select';
    if (tag === 'textarea') return 'textarea';
    if (tag === 'input') {
      if (['submit', 'button', 'reset', 'image'].includes(type)) return 'button';
      if (type === 'checkbox' || type === 'radio') return type;
      if (type === 'number') return 'number';
      if (type === 'range') return 'slider';
      if (type === 'email') return 'email';
      if (type === 'search') return 'search';
      return 'textbox';
    }
    if (role === 'link') return 'link';
    if (role === 'slider' || role === 'spinbutton') return role;
    if (['tab', 'treeitem', 'option', 'checkbox', 'radio', 'switch', 'combobox', 'listbox'].includes(role)) return role;
    if (role.startsWith('menuitem')) return 'menuitem';
    if (role === 'textbox' || role === 'searchbox' || h === 'editable') return 'textbox';
    if (h === 'generic' || h === 'item') return 'clickable';
    return 'button';
  };
  const forms = Array.from(document.forms);
  const affordances = [], affEls = [];
  // A link whose href only runs a script ("#", "javascript:void(0)")
  // acts like a button: it goes nowhere.
  const scripted = (el) => { const h = (el.getAttribute('href') || '').trim(); return h === '' || h === '#' || h === '#!' || /^javascript:/i.test(h); };
  for (const { el, ctx, how: h, group } of found) {
    if (affordances.length >= max) break;
    if (!visible(el) || el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
    const tag = el.localName, type = (el.getAttribute('type') || '').toLowerCase();
    const role = roleOf(el) || implicitRole(el);
    const kind = kindOf(el, role, h);
    const generic = h === 'generic' || h === 'item';
    const holder = h === 'item' && group.holders.has(el);
    const name = holder ? norm(ownText(el, group.set)).slice(0, 120) : accName(el, generic);
    const clicks = !['textbox', 'textarea', 'number', 'email', 'search', 'select', 'checkbox', 'radio', 'combobox', 'listbox', 'slider', 'spinbutton'].includes(kind);
    const hint = name ? '' : clicks ? iconHint(el) : neighbourLabel(el, kind === 'checkbox' || kind === 'radio');
    if (generic && !name && !hint) continue; // nothing to tell it by
    const r = el.getBoundingClientRect();
    const form = el.form ? forms.indexOf(el.form) : -1;
    const a = {
      kind,
      target: {
        testid: el.getAttribute('data-testid') || undefined,
        aria_label: norm(el.getAttribute('aria-label')) || undefined,
        role: role || undefined,
        name: name || undefined,
        id: el.id || undefined,
        field: el.getAttribute('name') || undefined,
        text: clicks && !holder && !(group && group.lookalike.has(el)) ? (norm(el.innerText || el.value).slice(0, 80) || undefined) : undefined,
        css: ctx.css + cssPath(el),
        near: near(el) || undefined,
        hint: hint || undefined,
        box: { x: Math.round(ctx.x + r.left + scrollX), y: Math.round(ctx.y + r.top + scrollY), w: Math.round(r.width), h: Math.round(r.height) },
      },
      region: obscured(el, ctx) ? 'obscured' : region(el),
      form,
    };
    if (tag === 'a' && el.href && !scripted(el)) a.href = el.href;
    if (tag === 'input') a.input_type = type || 'text';
    if (tag === 'select') a.options = Array.from(el.options, o => ({ value: o.value, text: norm(o.text), selected: o.selected || undefined }));
    if (tag === 'input' || tag === 'textarea' || tag === 'select') a.value = String(el.value);
    else if (h === 'editable') a.value = norm(el.innerText);
    else if (kind === 'combobox') a.value = norm(el.innerText || el.textContent || '');
    if (tag === 'input' && ['range', 'number', 'date', 'time', 'datetime-local', 'month', 'week'].includes(type)) {
      // The bounds a value must keep, in the control's own format.
      for (const k of ['min', 'max', 'step']) if (el.getAttribute(k)) a[k] = el.getAttribute(k);
    } else if (kind === 'slider' || kind === 'spinbutton') {
      const g = (k) => norm(el.getAttribute(k)) || undefined;
      a.value = g('aria-valuenow') || '';
      a.min = g('aria-valuemin'); a.max = g('aria-valuemax'); a.value_text = g('aria-valuetext');
    }
    if (type === 'checkbox' || type === 'radio') a.checked = el.checked;
    else if (['checkbox', 'radio', 'switch', 'menuitem'].includes(kind)) a.checked = el.getAttribute('aria-checked') === 'true' || el.getAttribute('aria-pressed') === 'true';
    else if (kind === 'tab' || kind === 'option' || kind === 'treeitem') a.checked = el.getAttribute('aria-selected') === 'true';
    if (el.required) a.required = true;
    if (form >= 0 && (kind === 'button') && (tag === 'button' ? (type === '' || type === 'submit') : type === 'submit' || type === 'image')) a.submit = true;
    affordances.push(a);
    affEls.push(el);
  }
  // A closed hover menu is pointed at through its first visible control
  // (its label link), or itself when it has none.
  for (const [el, hidden] of revealers) {
    if (!hidden.length || !visible(el) || affordances.length >= max) continue;
    const reveals = [...new Set(hidden.map(x => accName(x, true) || iconHint(x)).filter(Boolean))].slice(0, 8).map(n => n.slice(0, 40));
    const i = affEls.findIndex(x => x === el || el.contains(x));
    if (i >= 0) { affordances[i].hover = true; affordances[i].reveals = reveals; continue; }
    const name = norm(el.innerText).slice(0, 80);
    if (!name) continue;
    const r = el.getBoundingClientRect();
    affordances.push({
      kind: 'menu',
      target: { role: roleOf(el) || undefined, name, id: el.id || undefined, text: name, css: cssPath(el), near: near(el) || undefined,
        box: { x: Math.round(r.left + scrollX), y: Math.round(r.top + scrollY), w: Math.round(r.width), h: Math.round(r.height) } },
      region: obscured(el, { doc: document, win: window, x: 0, y: 0 }) ? 'obscured' : region(el),
      form: -1, hover: true, reveals,
    });
  }
  const answers = [];
  for (const p of (arg.probes || [])) {
    const ans = {};
    try {
      if (p.kind === 'element') {
        const all = document.querySelectorAll(p.selector);
        ans.count = all.length;
        const el = all[0];
        if (el) {
          ans.found = true;
          ans.visible = visible(el);
          ans.text = norm(el.innerText !== undefined && el.innerText !== '' ? el.innerText : el.textContent);
          if ('value' in el) ans.value = String(el.value);
          else if (el.hasAttribute('value')) ans.value = el.getAttribute('value');
        }
      } else if (p.kind === 'js') {
        ans.truthy = !!(new Function('return (' + p.script + ');'))();
      } else if (p.kind === 'body') {
        ans.text = norm(document.body ? document.body.innerText : '');
      }
    } catch (e) { ans.error = String(e && e.message || e); }
    answers.push(ans);
  }
  // Values of fields that hold personal data or credentials, by type,
  // name, id or autocomplete hint (the scrubber's rule, scrub.PagePatterns):
  // scrubbed by the caller wherever they appear.
  const pat = arg.patterns;
  const piiField = new RegExp(pat.field, 'i');
  const pii = [];
  // Fields in open shadow roots and same-origin iframes count too: their
  // values reach the DOM serialization and the affordances.
  const fields = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.localName === 'input' || el.localName === 'textarea') fields.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
      if (el.localName === 'iframe' || el.localName === 'frame') {
        let d = null;
        try { d = el.contentDocument; } catch (e) { d = null; }
        if (d) collect(d);
      }
    }
  };
  collect(document);
  for (const el of fields) {
    const v = String(el.value || '');
    if (v.length < pat.min_substring) continue;
    const t = (el.getAttribute('type') || '').toLowerCase();
    if (pat.field_types.includes(t) || piiField.test(el.name || '') || piiField.test(el.id || '') || piiField.test(el.getAttribute('autocomplete') || '')) pii.push(v);
  }
  // facts are the label and value pairs the page states in text (see
  // branch.Fact): a table cell by its row's header or first cell and its
  // column's header, a definition list's term and description, a
  // "Label: value" line. Shown ones only, at most factLimit.
  const factLimit = 150;
  const readFacts = () => {
    const facts = [];
    const seen = new Set();
    const push = (key, value) => {
      key = asLabel(key); value = norm(value);
      if (facts.length >= factLimit || !key || !value || key.length > 80 || value.length > 80 || key === value) return;
      const id = key + '\u0000' + value;
      if (!seen.has(id)) { seen.add(id); facts.push({ key, value }); }
    };
    const shown = (el) => el.getClientRects().length > 0 && styleOf(el).visibility !== 'hidden';
    const cellText = (c) => c.querySelector('input,select,textarea,button,[role=button],[role=checkbox],[role=switch],[role=slider]') ? '' : norm(c.innerText);
    const headerCell = (c) => c.localName === 'th' || c.getAttribute('role') === 'columnheader';
    for (const t of document.querySelectorAll('table,[role=table],[role=grid],[role=treegrid]')) {
      if (facts.length >= factLimit || !shown(t)) continue;
      const rows = t.localName === 'table' ? Array.from(t.rows) : Array.from(t.querySelectorAll('[role=row]'));
      let head = [];
      for (const r of rows.slice(0, 200)) {
        const cells = r.localName === 'tr' ? Array.from(r.cells) : Array.from(r.querySelectorAll('[role=cell],[role=gridcell],[role=rowheader],[role=columnheader]'));
        if (!cells.length || !shown(r)) continue;
        if (cells.every(headerCell)) { head = cells.map(c => asLabel(c.innerText)); continue; }
        let k = cells.findIndex(c => c.localName === 'th' || c.getAttribute('role') === 'rowheader');
        if (k < 0) k = 0;
        const rk = cellText(cells[k]);
        if (!rk) continue;
        cells.forEach((c, i) => { if (i !== k) push(rk + ' ' + (head[i] || ''), cellText(c)); });
      }
    }
    for (const dt of document.querySelectorAll('dt')) {
      if (facts.length >= factLimit || !shown(dt)) continue;
      for (let d = dt.nextElementSibling; d && d.localName === 'dd'; d = d.nextElementSibling) push(dt.innerText, d.innerText);
    }
    const line = /^([^:\d](?:[^:]{0,38}[^:\d])?):\s*(\S.{0,79})$/;
    const lines = new Set();
    const walk = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(), k = 0; n && k < 5000 && facts.length < factLimit; n = walk.nextNode(), k++) {
      if (!n.nodeValue.includes(':')) continue;
      for (let e = n.parentElement, d = 0; e && e !== document.body && d < 3; e = e.parentElement, d++) {
        if (['script', 'style', 'template', 'option', 'button', 'textarea', 'select'].includes(e.localName) || lines.has(e)) break;
        const raw = e.innerText || '';
        if (raw.includes('\n') || !shown(e)) break;
        const t = norm(raw);
        const m = line.exec(t);
        if (!m) {
          if (t.endsWith(':')) continue; // "<b>Order number:</b> 4521": the value is beside it
          break;
        }
        if (!e.querySelector(widgetSel)) { lines.add(e); push(m[1], m[2]); }
        break;
      }
    }
    return facts;
  };
  return {
    pii,
    dom: out.join(''),
    affordances,
    facts: readFacts(),
    answers,
    text: arg.text ? (document.body ? document.body.innerText : '').slice(0, 262144) : '',
    ready: document.readyState,
    title: document.title,
    live: window.__mvLive ? window.__mvLive.take() : null,
    sent: ` + takeSentJS + `,
  };
}`

// readScript reads a field for the committer: the text of the first
// element matching selector, or one of its attributes.
const readScript = `([selector, attr]) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  if (attr) return el.getAttribute(attr);
  return String(el.innerText !== undefined && el.innerText !== '' ? el.innerText : el.textContent).replace(/\s+/g, ' ').trim();
}`

// maskScript finds what a screenshot must not show and returns its boxes
// in CSS pixels of the viewport: every form field that holds personal
// data by its declaration (type, name, id, autocomplete hint) or by its
// value, and every stretch of visible text the scrubber would tokenize,
// in open shadow roots and same-origin iframes too (an iframe's boxes
// moved into the top viewport). Its argument is {patterns:
// scrub.PagePatterns(), known: [values]}: the scrubber's own rules (one
// definition, read by Go and by this script) and the values the session
// knows are personal (typed secrets, personal field values, values
// scrubbed from bodies by their key). It reads the page and changes
// nothing.
const maskScript = `(arg) => {
  const pat = arg.patterns;
  const g = (src) => new RegExp(src, 'g');
  const field = new RegExp(pat.field, 'i');
  const shapes = [g(pat.email), g(pat.encoded_email), g(pat.phone)];
  const card = g(pat.card), userinfo = g(pat.userinfo);
  const known = (arg.known || []).filter(v => v);
  const luhn = (d) => {
    let sum = 0, dbl = false;
    for (let i = d.length - 1; i >= 0; i--) {
      let x = d.charCodeAt(i) - 48;
      if (dbl) { x *= 2; if (x > 9) x -= 9; }
      sum += x; dbl = !dbl;
    }
    return sum % 10 === 0;
  };
  // spans lists the [start, end) stretches of t the scrubber tokenizes.
  const spans = (t) => {
    const out = [];
    const all = (re, keep) => { re.lastIndex = 0; let m; while ((m = re.exec(t)) !== null) { if (m[0] === '') { re.lastIndex++; continue; } if (!keep || keep(m)) out.push([m.index, m.index + m[0].length]); } };
    for (const re of shapes) all(re);
    all(card, (m) => { const d = m[0].replace(/[^0-9]/g, ''); return d.length >= pat.card_min_digits && d.length <= pat.card_max_digits && luhn(d); });
    all(userinfo);
    for (const v of known) {
      if (v.length >= pat.min_substring) { for (let i = t.indexOf(v); i >= 0; i = t.indexOf(v, i + v.length)) out.push([i, i + v.length]); }
      else if (t.trim() === v) { const i = t.indexOf(v); out.push([i, i + v.length]); }
    }
    return out;
  };
  const rects = [];
  // A box is in its own document's viewport; at is that viewport's
  // offset in the top page and clip the part of the top viewport it shows.
  const add = (r, at) => {
    const c = at.clip;
    const l = Math.max(r.left + at.x, c.l), t = Math.max(r.top + at.y, c.t);
    const rr = Math.min(r.right + at.x, c.r), b = Math.min(r.bottom + at.y, c.b);
    if (r.width > 0 && r.height > 0 && rr > l && b > t) rects.push({ x: l, y: t, w: rr - l, h: b - t });
  };
  const skipTypes = ['hidden', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'range', 'color'];
  const isField = (el) => (el.localName === 'input' && !skipTypes.includes((el.getAttribute('type') || '').toLowerCase())) || el.localName === 'textarea' || el.localName === 'select';
  const personalField = (el) => {
    const values = [String(el.value || '')];
    if (el.localName === 'select' && el.selectedIndex >= 0 && el.options[el.selectedIndex]) values.push(String(el.options[el.selectedIndex].text || ''));
    if (!values.some(v => v !== '')) return false;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (pat.field_types.includes(type)) return true;
    for (const a of [el.getAttribute('name'), el.id, el.getAttribute('autocomplete')]) if (a && field.test(a)) return true;
    return values.some(v => v !== '' && spans(v).length > 0);
  };
  // walk descends into open shadow roots and same-origin iframes, as the
  // observation does; an iframe's boxes move by its box and its border
  // and padding, and are clipped to its content box.
  const walk = (root, doc, at) => {
    const tw = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = tw.nextNode(); n; n = tw.nextNode()) {
      if (n.nodeType === 3) {
        const p = n.parentElement;
        if (!p || ['script', 'style', 'noscript', 'textarea', 'select', 'option'].includes(p.localName)) continue;
        const t = n.nodeValue;
        if (!t || !t.trim()) continue;
        for (const [a, b] of spans(t)) {
          const r = doc.createRange();
          r.setStart(n, a); r.setEnd(n, b);
          for (const cr of r.getClientRects()) add(cr, at);
        }
        continue;
      }
      if (isField(n) && personalField(n)) add(n.getBoundingClientRect(), at);
      if (n.shadowRoot) walk(n.shadowRoot, doc, at);
      if (n.localName === 'iframe' || n.localName === 'frame') {
        let d = null;
        try { d = n.contentDocument; } catch (e) { d = null; }
        if (!d || !d.documentElement) continue;
        const r = n.getBoundingClientRect(), cs = doc.defaultView.getComputedStyle(n);
        const x = at.x + r.left + n.clientLeft + (parseFloat(cs.paddingLeft) || 0);
        const y = at.y + r.top + n.clientTop + (parseFloat(cs.paddingTop) || 0);
        const w = d.defaultView ? d.defaultView.innerWidth : n.clientWidth, h = d.defaultView ? d.defaultView.innerHeight : n.clientHeight;
        const c = at.clip;
        walk(d.documentElement, d, { x, y, clip: { l: Math.max(x, c.l), t: Math.max(y, c.t), r: Math.min(x + w, c.r), b: Math.min(y + h, c.b) } });
      }
    }
  };
  if (document.documentElement) walk(document.documentElement, document, { x: 0, y: 0, clip: { l: 0, t: 0, r: innerWidth, b: innerHeight } });
  return rects;
}`

// userEventJS is a script function reporting whether an event is a
// person's input: trusted, and a user interface event (a click, a key, a
// touch) or a form's own event (submit, change, input, reset). A
// WebSocket's open, a response's load and a message are trusted too, but
// what a page sends in their handlers is the page's own doing.
const userEventJS = `(e) => !!(e && e.isTrusted && (e instanceof UIEvent || /^(submit|change|input|reset|select|toggle)$/.test(e.type)))`

// userRequestScript notes the requests a page sends by fetch or
// XMLHttpRequest while it handles a trusted user event (a click, a key):
// the action's own requests, as opposed to the page's timers and load
// scripts. The list lives under a symbol-keyed property of window,
// invisible to the page; the session takes it after each action
// (takeUserRequests). fetch stays a native-looking function (a Proxy).
const userRequestScript = `(() => {
  const KEY = Symbol.for('multiverse.userRequests');
  if (window[KEY]) return;
  Object.defineProperty(window, KEY, { value: [], writable: true, configurable: true });
  const userEvent = ` + userEventJS + `;
  const byUser = () => { try { return userEvent(window.event); } catch (x) { return false; } };
  // Every request sent is listed too, its URL as the browser sends it
  // (the session waits for those it has not seen: drainSent).
  const SENT = Symbol.for('multiverse.sent');
  Object.defineProperty(window, SENT, { value: [], writable: true, configurable: true });
  const sent = (url) => {
    try {
      const u = new URL(String(url), location.href); u.hash = '';
      if ((u.protocol === 'http:' || u.protocol === 'https:') && window[SENT].length < 200) window[SENT].push(u.href);
    } catch (x) {}
  };
  const note = (method, url) => {
    try { if (byUser() && window[KEY].length < 100) window[KEY].push([String(method || 'GET').toUpperCase(), new URL(String(url), location.href).href]); } catch (x) {}
  };
  // The live script notes WebSocket frames through the same function.
  Object.defineProperty(window, Symbol.for('multiverse.noteRequest'), { value: note });
  if (window.fetch) {
    window.fetch = new Proxy(window.fetch, { apply(target, self, args) {
      try { const r = args[0]; const init = args[1] || {};
        note(init.method || (r && r.method) || 'GET', (r && r.url) || r); sent((r && r.url) || r); } catch (x) {}
      return Reflect.apply(target, self, args);
    } });
  }
  const XHR = window.XMLHttpRequest && window.XMLHttpRequest.prototype;
  if (XHR) {
    const open = XHR.open, send = XHR.send, M = Symbol('m');
    XHR.open = new Proxy(open, { apply(target, self, args) { try { self[M] = [args[0], args[1]]; } catch (x) {} return Reflect.apply(target, self, args); } });
    XHR.send = new Proxy(send, { apply(target, self, args) { if (self[M]) { note(self[M][0], self[M][1]); sent(self[M][1]); } return Reflect.apply(target, self, args); } });
  }
  // A document the top frame is leaving (a script's reload, a link, a
  // form) says so before its navigation's request leaves: the session
  // waits for that request (navSent) instead of reading a page that is
  // about to go.
  if (window.top === window) {
    window.addEventListener('beforeunload', () => { try { if (window[SENT].length < 200) window[SENT].push('` + navSent + `'); } catch (x) {} }, true);
  }
})();`
