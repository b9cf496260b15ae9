package browser

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/multiverse-orchestrator/multiverse/branch"
)

// ReadLive returns what the first element matching selector holds now, as
// the site would receive it: an input's or textarea's current value (the
// value property, also when attr is "value": typed text is not in the
// attribute), a checkbox's or radio's checked state ("true" or "false"),
// a select's selected option's visible text (the options' texts joined
// by ", " for a multiple select); any other element its visible text.
// Any other attr reads that attribute as Read does. ok is false when no
// element matches (or the attribute is absent).
func (s *Session) ReadLive(ctx context.Context, selector, attr string) (value string, ok bool, err error) {
	var v any
	err = s.call(ctx, "reading "+selector, func() (e error) {
		v, e = s.page.Evaluate(readLiveScript, []any{selector, attr})
		return e
	})
	if err != nil {
		return "", false, fmt.Errorf("browser: reading %s: %w", selector, err)
	}
	if v == nil {
		return "", false, nil
	}
	if str, isStr := v.(string); isStr {
		return str, true, nil
	}
	return fmt.Sprint(v), true, nil
}

// readLiveScript is ReadLive's page side.
const readLiveScript = `([selector, attr]) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const tag = el.tagName.toLowerCase();
  const text = (n) => String(n.innerText !== undefined && n.innerText !== '' ? n.innerText : n.textContent).replace(/\s+/g, ' ').trim();
  const field = tag === 'input' || tag === 'textarea' || tag === 'select';
  if (attr && !(field && attr.toLowerCase() === 'value')) return el.getAttribute(attr);
  if (tag === 'select') return Array.from(el.selectedOptions).map(o => String(o.text).replace(/\s+/g, ' ').trim()).join(', ');
  if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? 'true' : 'false';
  if (tag === 'input' || tag === 'textarea') return String(el.value);
  return text(el);
}`

// Form is the form an element submits, read from the live page: its
// place in the document (to find it again in another load of the page)
// and the fields it would send now, in the order and with the values
// FormData gives them.
type Form struct {
	// Index is the form's position in document.forms; ID its id
	// attribute ("" when none); Action its resolved action URL; Method
	// "get" or "post".
	Index  int    `json:"index"`
	ID     string `json:"id"`
	Action string `json:"action"`
	Method string `json:"method"`
	// Fields are the name=value pairs the form would send, as FormData
	// builds them (the submitting button included when it has a name; a
	// file as "file:NAME:SIZE").
	Fields []FormField `json:"fields"`
	// KeyField is the name of the field the key selector matched ("" when
	// none did, or it has no name).
	KeyField string `json:"key_field"`
}

// FormField is one name=value pair of a form's submission, with what the
// field declares about itself (the first control of that name).
type FormField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Type is the control's input type ("text", "hidden", "password",
	// "email", ...), or its tag for select, textarea and button.
	Type         string `json:"type"`
	ID           string `json:"id,omitempty"`
	Autocomplete string `json:"autocomplete,omitempty"`
}

// SubmittedForm returns the form the action's target submits: the
// target's own form (its form owner, also through a form attribute), the
// nearest enclosing form, or the target itself when it is a form. It
// returns nil and no error when the target belongs to no form.
// keySelector, when set, names the field that will carry the
// idempotency key (Form.KeyField). A target that does not resolve is an
// *ActionError as for the action itself.
func (s *Session) SubmittedForm(ctx context.Context, target *branch.Target, keySelector string) (*Form, error) {
	if target == nil {
		return nil, nil
	}
	var v any
	err := s.call(ctx, "reading the submitted form", func() error {
		loc, _, _, err := s.resolve(target)
		if err != nil {
			return err
		}
		v, err = loc.Evaluate(submittedFormScript, keySelector)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("browser: reading the form of %s: %w", target.Describe(), err)
	}
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("browser: reading the form of %s: %w", target.Describe(), err)
	}
	var f Form
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("browser: reading the form of %s: %w", target.Describe(), err)
	}
	return &f, nil
}

// submittedFormScript is SubmittedForm's page side.
const submittedFormScript = `(el, keySel) => {
  let form = null, submitter = null;
  if (el instanceof HTMLFormElement) form = el;
  else {
    form = el.form || el.closest('form');
    const tag = el.tagName.toLowerCase();
    if ((tag === 'button' && el.type === 'submit') || (tag === 'input' && (el.type === 'submit' || el.type === 'image'))) {
      if (el.form === form) submitter = el;
    }
  }
  if (!form) return null;
  let fd;
  try { fd = submitter ? new FormData(form, submitter) : new FormData(form); } catch (e) { fd = new FormData(form); }
  const meta = {};
  for (const c of Array.from(form.elements)) {
    if (!c.name || meta[c.name]) continue;
    const tag = c.tagName.toLowerCase();
    meta[c.name] = {type: tag === 'input' ? (c.type || 'text') : tag, id: c.id || '', autocomplete: c.getAttribute('autocomplete') || ''};
  }
  const fields = [];
  for (const [name, v] of fd.entries()) {
    const m = meta[name] || {type: '', id: '', autocomplete: ''};
    const value = typeof v === 'string' ? v : ('file:' + v.name + ':' + v.size);
    fields.push({name, value, type: m.type, id: m.id, autocomplete: m.autocomplete});
  }
  let key = '';
  if (keySel) { const k = document.querySelector(keySel); if (k && k.name) key = k.name; }
  return {index: Array.from(document.forms).indexOf(form), id: form.id || '', action: form.action || '',
    method: (form.method || 'get').toLowerCase(), fields, key_field: key};
}`

// Content returns the page's document as HTML now: the DOM serialized,
// so a field's value attribute (its default) shows, not what was typed.
func (s *Session) Content(ctx context.Context) (string, error) {
	var html string
	err := s.call(ctx, "reading the page", func() (e error) {
		html, e = s.page.Content()
		return e
	})
	if err != nil {
		return "", fmt.Errorf("browser: reading the page: %w", err)
	}
	return html, nil
}
