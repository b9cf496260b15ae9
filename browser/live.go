package browser

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// Live channels: WebSocket and EventSource traffic. Playwright sees
// neither a WebSocket's frames as requests nor an event stream's events
// before the stream ends, and what a page renders from them depends on
// when each frame arrived. So the page records them itself: an init script
// wraps both constructors, and every connection's life (created, open,
// each frame in and out with its order, closed, failed) goes into a log
// in the page. The log is taken with the observation, in the same
// evaluation that reads the DOM, so the frames a step's record holds are
// exactly those the observed page had seen; the frames that arrive
// between an observation and the next action are taken when that action
// starts (phase "pre").
//
// Speculation holds the frames a page sends (liveGate): the script asks
// the session before each one. The wall stands in the page, as
// Playwright's own WebSocket routing does: it holds every page that uses
// the WebSocket API, not one that digs a native send out of another
// realm on purpose.
//
// A strict replay installs the script in play mode: the constructors
// make stand-ins that never touch the network, and the session feeds them
// the recorded frames at the points they were taken (FeedLive): the pre
// phase before the action, the rest after it. Frames the page sends are
// logged as at capture; they take part in the step's network digest, so a
// frame the recording lacks is a divergence.

// liveTakeLimit bounds the entries one take keeps: a feed that floods the
// page is recorded up to it, and the record says how many it dropped.
const liveTakeLimit = 1000

// liveScript is the init script; play selects the stand-ins.
func liveScript(play bool) string {
	return fmt.Sprintf(liveScriptSource, play, liveTakeLimit, liveGateBinding)
}

// liveGateBinding is the name under which the session answers whether a
// frame a page sends on a WebSocket may go out (liveGate).
const liveGateBinding = "__multiverseLiveGate"

const liveScriptSource = `(() => {
  if (window.__mvLive) return;
  const play = %t, limit = %d;
  let log = [], dropped = 0, next = 0;
  const counts = {}, conns = [], queue = [];
  const note = (c, k, extra) => {
    const key = c + ' ' + k;
    counts[key] = (counts[key] || 0) + 1;
    if (log.length >= limit) { dropped++; return; }
    log.push(Object.assign({ c, k, n: counts[key] }, extra || {}));
  };
  const b64 = (buf) => {
    const u = new Uint8Array(buf instanceof ArrayBuffer ? buf : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    let s = '';
    for (let i = 0; i < u.length; i++) s += String.fromCharCode(u[i]);
    return btoa(s);
  };
  const enc = (d) => {
    if (typeof d === 'string') return { d };
    if (d instanceof ArrayBuffer || ArrayBuffer.isView(d)) return { d: b64(d), b: true };
    if (d instanceof Blob) return { d: '[blob ' + d.size + ' bytes]', b: true };
    return { d: String(d) };
  };
  const dec = (f, binaryType) => {
    if (!f.b) return f.d;
    const s = atob(f.d), u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return binaryType === 'arraybuffer' ? u.buffer : new Blob([u]);
  };
  const abs = (u, ws) => {
    const x = new URL(String(u), location.href);
    if (ws && (x.protocol === 'http:' || x.protocol === 'https:')) x.protocol = x.protocol === 'https:' ? 'wss:' : 'ws:';
    return x.href;
  };
  Object.defineProperty(window, '__mvLive', { value: {
    take() { const out = { entries: log, dropped }; log = []; dropped = 0; return out; },
    feed(entries) { for (const e of entries) queue.push(e); pump(); },
  } });
  // fire dispatches an event on a stand-in and calls its on<type> handler.
  const fire = (t, ev) => {
    t.dispatchEvent(ev);
    const h = t['on' + ev.type];
    if (typeof h === 'function') { try { h.call(t, ev); } catch (err) { setTimeout(() => { throw err; }); } }
  };
  const pump = () => {
    while (queue.length) {
      const e = queue[0], t = conns[e.c];
      if (e.k === 'new' || e.k === 'out') { queue.shift(); continue; } // the page's own doing
      if (!t) return; // its connection is not made yet in this document
      queue.shift();
      if (e.k === 'open') {
        t.readyState = 1;
        if (e.p) t.protocol = e.p;
        note(e.c, 'open', e.p ? { p: e.p } : null);
        fire(t, new Event('open'));
      } else if (e.k === 'in') {
        note(e.c, 'in', { d: e.d, b: e.b, t: e.t, id: e.id });
        fire(t, new MessageEvent(e.t || 'message', { data: dec(e, t.binaryType), lastEventId: e.id || '', origin: new URL(t.url).origin }));
      } else if (e.k === 'close') {
        t.readyState = 3;
        note(e.c, 'close', { code: e.code, reason: e.reason });
        fire(t, new CloseEvent('close', { code: e.code || 1005, reason: e.reason || '', wasClean: true }));
      } else if (e.k === 'error') {
        if (e.rs !== undefined) t.readyState = e.rs;
        note(e.c, 'error', e.rs !== undefined ? { rs: e.rs } : null);
        fire(t, new Event('error'));
      }
    }
  };
  // gate asks the session whether a frame may go out (a promise of true
  // or false), and has the request script note a frame sent while the
  // page handles a person's input as the action's own. The session's
  // binding is taken now, before any page script runs, so a page that
  // replaces the global later does not answer for the session; without
  // it nothing goes out: speculation denies by default.
  const ask = window[%q];
  const noteUser = window[Symbol.for('multiverse.noteRequest')];
  const gate = (ws, d) => {
    if (typeof noteUser === 'function') noteUser('WS', ws.url);
    if (typeof ask !== 'function') return Promise.resolve(false);
    return ask(ws.url, typeof d === 'string' ? d.slice(0, 4096) : '');
  };
  const consts = (C, names) => names.forEach((n, i) => {
    Object.defineProperty(C, n, { value: i });
    Object.defineProperty(C.prototype, n, { value: i });
  });
  const NativeWS = window.WebSocket, NativeES = window.EventSource;
  let WS, ES;
  if (!play) {
    WS = class WebSocket extends NativeWS {
      constructor(url, protocols) {
        super(url, protocols);
        const c = ++next;
        Object.defineProperty(this, '__mvc', { value: c });
        note(c, 'new', { url: this.url });
        super.addEventListener('open', () => note(c, 'open', this.protocol ? { p: this.protocol } : null));
        super.addEventListener('message', (e) => note(c, 'in', enc(e.data)));
        super.addEventListener('close', (e) => note(c, 'close', { code: e.code, reason: e.reason }));
        super.addEventListener('error', () => note(c, 'error'));
      }
    };
    // The native send itself goes through the gate, so a socket reached
    // another way than this constructor (the prototype chain, a subclass
    // made before) is held too. Frames of one socket keep their order.
    const nativeSend = NativeWS.prototype.send;
    Object.defineProperty(NativeWS.prototype, 'send', { configurable: true, writable: true, value: function send(d) {
      if (this.readyState !== 1) return nativeSend.call(this, d); // the browser's own error, or a no-op once closing
      note(this.__mvc, 'out', enc(d));
      const ok = gate(this, d);
      this.__mvq = (this.__mvq || Promise.resolve()).then(() => ok).then((go) => {
        if (go === true && this.readyState === 1) nativeSend.call(this, d);
      }, () => {});
    } });
    ES = class EventSource extends NativeES {
      constructor(url, init) {
        super(url, init);
        const c = ++next;
        Object.defineProperty(this, '__mvc', { value: c });
        Object.defineProperty(this, '__mvtypes', { value: new Set() });
        note(c, 'new', { url: this.url });
        super.addEventListener('open', () => note(c, 'open'));
        super.addEventListener('error', () => note(c, 'error', { rs: this.readyState }));
        this.__mvhook('message');
      }
      __mvhook(type) {
        if (type === 'open' || type === 'error' || this.__mvtypes.has(type)) return;
        this.__mvtypes.add(type);
        super.addEventListener(type, (e) => note(this.__mvc, 'in', { d: String(e.data), t: type, id: e.lastEventId || undefined }));
      }
      addEventListener(type, fn, o) { this.__mvhook(String(type)); return super.addEventListener(type, fn, o); }
    };
  } else {
    WS = class WebSocket extends EventTarget {
      constructor(url, protocols) {
        super();
        Object.assign(this, { url: abs(url, true), readyState: 0, protocol: '', extensions: '', binaryType: 'blob', bufferedAmount: 0,
          onopen: null, onmessage: null, onclose: null, onerror: null });
        const c = ++next;
        Object.defineProperty(this, '__mvc', { value: c });
        conns[c] = this;
        note(c, 'new', { url: this.url });
        queueMicrotask(pump);
      }
      send(d) {
        if (this.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
        if (this.readyState !== 1) return;
        note(this.__mvc, 'out', enc(d));
        gate(this, d); // held or not, a stand-in sends nothing; the decision is recorded as at capture
      }
      close() { if (this.readyState < 2) this.readyState = 2; }
    };
    ES = class EventSource extends EventTarget {
      constructor(url, init) {
        super();
        Object.assign(this, { url: abs(url, false), withCredentials: !!(init && init.withCredentials), readyState: 0,
          onopen: null, onmessage: null, onerror: null });
        const c = ++next;
        Object.defineProperty(this, '__mvc', { value: c });
        conns[c] = this;
        note(c, 'new', { url: this.url });
        queueMicrotask(pump);
      }
      close() { this.readyState = 2; }
    };
  }
  consts(WS, ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']);
  consts(ES, ['CONNECTING', 'OPEN', 'CLOSED']);
  if (NativeWS) window.WebSocket = WS;
  if (NativeES) window.EventSource = ES;
})()`

// liveTake is what the page's log gave.
type liveTake struct {
	Entries []branch.LiveFrame `json:"entries"`
	Dropped int                `json:"dropped"`
}

// takeLive reads and empties the page's live log: the pre phase of a
// step (what arrived since the last observation) when keep, otherwise
// entries of a step that was not observed, dropped with any the session
// still holds.
func (s *Session) takeLive(keep bool) {
	raw, err := s.page.Evaluate(`() => window.__mvLive ? window.__mvLive.take() : null`)
	if !keep {
		s.stepLive()
		return
	}
	if err != nil || raw == nil {
		return
	}
	s.keepLive(raw, branch.LivePre)
}

// keepLive scrubs and keeps the entries of a take for the running step.
func (s *Session) keepLive(raw any, phase string) {
	b, err := json.Marshal(raw)
	if err != nil {
		return
	}
	var t liveTake
	if json.Unmarshal(b, &t) != nil {
		return
	}
	known := s.knownPersonal(nil)
	for i := range t.Entries {
		f := &t.Entries[i]
		f.Phase = phase
		if f.URL != "" {
			f.URL = s.scrubURL(f.URL)
		}
		if f.Data != "" && !f.Binary {
			// A text frame is scrubbed as a body is (a JSON frame by its
			// keys, a form by its fields), then for the personal values the
			// session has seen.
			f.Data = s.scrubText(string(s.scrubBody("", []byte(f.Data))), known)
		}
		f.Reason, f.ID = s.scrubText(f.Reason, known), s.scrubText(f.ID, known)
	}
	s.mu.Lock()
	if len(t.Entries) > 0 {
		s.liveSeen = true // a strict replay's stand-ins fire no websocket event
	}
	s.live = append(s.live, t.Entries...)
	s.liveDropped += t.Dropped
	s.mu.Unlock()
}

// stepLive returns the live entries the running step kept, and forgets
// them.
func (s *Session) stepLive() ([]branch.LiveFrame, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, dropped := s.live, s.liveDropped
	s.live, s.liveDropped = nil, 0
	return out, dropped
}

// FeedLive hands recorded live frames to the page's stand-ins (a session
// made with SessionOptions.PlayLive) and waits for what the page does
// with them to settle. Frames the page sends and connections it makes
// are its own doing: they are compared, never fed.
func (s *Session) FeedLive(ctx context.Context, frames []branch.LiveFrame) error {
	if len(frames) == 0 {
		return nil
	}
	// The frames' JSON names are the page log's own; playwright-go passes
	// only maps and slices of any, so they go through JSON once.
	b, err := json.Marshal(frames)
	if err != nil {
		return fmt.Errorf("browser: feeding live frames: %w", err)
	}
	var arg []any
	if err := json.Unmarshal(b, &arg); err != nil {
		return fmt.Errorf("browser: feeding live frames: %w", err)
	}
	err = s.call(ctx, "feeding live frames", func() error {
		_, err := s.page.Evaluate(`(fs) => { if (window.__mvLive) window.__mvLive.feed(fs); }`, arg)
		return err
	})
	if err != nil {
		return fmt.Errorf("browser: feeding live frames: %w", err)
	}
	return s.quiet(ctx, time.Now().Add(s.opts.Env.ActionTimeout))
}

// liveLines are the digest lines of a step's live entries: connection,
// kind, order within its kind on the connection, and what it carried
// (hashed), one line each, for the step's network digest.
func liveLines(fs []branch.LiveFrame) []string {
	lines := make([]string, 0, len(fs))
	for _, f := range fs {
		what := f.URL + "\x00" + f.Type + "\x00" + f.Data + "\x00" + f.Protocol + "\x00" + strconv.Itoa(f.Code)
		h := sha256.Sum256([]byte(what))
		lines = append(lines, "live "+strconv.Itoa(f.Conn)+" "+f.Kind+" "+strconv.Itoa(f.N)+" "+hex.EncodeToString(h[:8])+"\n")
	}
	return lines
}

// isStream reports an event-stream request: its events are recorded as
// live frames, so the request is neither waited for nor digested.
func isStream(r *netRec) bool {
	return r.stream || r.Type == "eventsource"
}
